package rpcarena.worker.grpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import io.grpc.MethodDescriptor;
import java.util.List;
import rpcarena.arena.ArenaGrpc;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.JsonValues;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;

/** A spec's method and its requests and expected responses decoded once into protobuf messages. */
final class ProtoPayloads {
    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().preservingProtoFieldNames();

    final MethodDescriptor<Message, Message> method;
    private final Message[] requests;
    private final Message[] responses;

    private ProtoPayloads(MethodDescriptor<Message, Message> method, Message[] requests, Message[] responses) {
        this.method = method;
        this.requests = requests;
        this.responses = responses;
    }

    static ProtoPayloads decode(Spec spec) throws SpecError {
        MethodDescriptor<Message, Message> method = method(spec.method());
        spec.requirePairs();
        return new ProtoPayloads(method, decodeAll(spec.requests(), prototype(method.getRequestMarshaller())),
                decodeAll(spec.responses(), prototype(method.getResponseMarshaller())));
    }

    static MethodDescriptor<Message, Message> method(String name) throws SpecError {
        MethodDescriptor<?, ?> m = ArenaGrpc.getServiceDescriptor().getMethods().stream()
                .filter(d -> d.getBareMethodName().equals(name)).findFirst()
                .orElseThrow(() -> new SpecError("unknown method '" + name + "' in service arena.Arena"));
        return ArenaService.cast(m);
    }

    static Message prototype(MethodDescriptor.Marshaller<Message> marshaller) {
        return ((MethodDescriptor.PrototypeMarshaller<Message>) marshaller).getMessagePrototype();
    }

    /** A canonical-JSON value into a message of the prototype's type. */
    static Message fromJson(JsonNode json, Message prototype) throws InvalidProtocolBufferException {
        Message.Builder builder = prototype.newBuilderForType();
        PARSER.merge(json.toString(), builder);
        return builder.build();
    }

    /** A message as canonical JSON (int64 as strings, which readers accept). */
    static JsonNode toJson(MessageOrBuilder message) {
        try {
            return Json.MAPPER.readTree(PRINTER.print(message));
        } catch (InvalidProtocolBufferException | JsonProcessingException e) {
            throw new IllegalStateException("a message of this schema did not print as JSON", e);
        }
    }

    private static Message[] decodeAll(List<JsonNode> nodes, Message prototype) throws SpecError {
        Message[] out = new Message[nodes.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = fromJson(nodes.get(i), prototype);
            } catch (InvalidProtocolBufferException e) {
                throw new SpecError("payload " + i + " is not a " + prototype.getDescriptorForType().getName()
                        + ": " + e.getMessage());
            }
        }
        return out;
    }

    int slots() {
        return requests.length;
    }

    Message request(int slot) {
        return requests[slot];
    }

    /** Exact equality first (cheap); else equal as canonical JSON values with the double tolerance. */
    boolean matches(int slot, Object reply) {
        Message expected = responses[slot];
        if (expected.equals(reply)) {
            return true;
        }
        return reply instanceof Message m && JsonValues.equal(toJson(expected), toJson(m), JsonValues.DOUBLE_TOLERANCE);
    }
}
