package rpcarena.worker.grpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import rpcarena.worker.core.Json;

/** Canonical JSON of a protobuf-java generated message, through JsonFormat (proto field names). */
final class ProtoJson implements MessageJson {
    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().preservingProtoFieldNames();

    private final Message prototype;

    ProtoJson(Message prototype) {
        this.prototype = prototype;
    }

    @Override
    public Object fromJson(JsonNode json) throws InvalidProtocolBufferException {
        Message.Builder builder = prototype.newBuilderForType();
        PARSER.merge(json.toString(), builder);
        return builder.build();
    }

    /** int64 prints as a JSON string, which canonical-JSON readers accept. */
    @Override
    public JsonNode toJson(Object message) {
        try {
            return Json.MAPPER.readTree(PRINTER.print((Message) message));
        } catch (InvalidProtocolBufferException | JsonProcessingException e) {
            throw new IllegalStateException("a message of this schema did not print as JSON", e);
        }
    }
}
