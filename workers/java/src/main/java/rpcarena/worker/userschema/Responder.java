package rpcarena.worker.userschema;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DiscardUnknownFieldsParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.semantics.Refused;

/** What a user's method answers, as src/rpcarena/userschema/replies.py answers it (no cost spent). */
@FunctionalInterface
public interface Responder {
    /** The reply to {@code request}; Refused for a request the run's replies do not answer. */
    Message answer(Message request);

    /** The answer of {@code mode} (echo, file or size) from {@code pairs}, [request, reply] in proto JSON. */
    static Responder of(String mode, List<String[]> pairs, UserMethod method) throws SpecError {
        return switch (mode) {
            case "echo" -> echo(method.reply());
            case "size" -> sized(pairs, method);
            case "file" -> fromFile(pairs, method);
            default -> throw new SpecError("reply '" + mode + "': use echo, file or size");
        };
    }

    /**
     * The request's encoding read as the reply type, dropping the fields the reply lacks
     * (protobuf's wire compatibility); a method of one type answers the request itself.
     */
    private static Responder echo(Message reply) {
        var parser = DiscardUnknownFieldsParser.wrap(reply.getParserForType());
        return request -> {
            if (request.getDescriptorForType() == reply.getDescriptorForType()) {
                return request;
            }
            try {
                return (Message) parser.parseFrom(request.toByteString());
            } catch (InvalidProtocolBufferException e) {
                throw new Refused("the request does not read as " + reply.getDescriptorForType().getFullName());
            }
        };
    }

    /** One reply, filled to the asked size, whatever the request. */
    private static Responder sized(List<String[]> pairs, UserMethod method) throws SpecError {
        if (pairs.isEmpty()) {
            throw new SpecError("reply 'size' needs a [request, reply] pair");
        }
        Message reply = parse(pairs.get(0)[1], method.reply(), method, "the sized reply");
        return request -> reply;
    }

    /** Each request looked up by its deterministic encoding; a stranger is refused. */
    private static Responder fromFile(List<String[]> pairs, UserMethod method) throws SpecError {
        Map<ByteString, Message> table = new HashMap<>();
        for (int i = 0; i < pairs.size(); i++) {
            Message request = parse(pairs.get(i)[0], method.request(), method, "pair " + (i + 1) + " request");
            table.put(key(request), parse(pairs.get(i)[1], method.reply(), method, "pair " + (i + 1) + " reply"));
        }
        return request -> {
            Message reply = table.get(key(request));
            if (reply == null) {
                throw new Refused("a request that is none of the run's samples");
            }
            return reply;
        };
    }

    /** A proto JSON text as the generated message of {@code prototype}, one of {@code method}'s. */
    static Message parse(String json, Message prototype, UserMethod method, String what) throws SpecError {
        try {
            return method.jsonParser().parse(json, prototype);
        } catch (InvalidProtocolBufferException e) {
            throw new SpecError(what + ": " + e.getMessage());
        }
    }

    /** The deterministic encoding: equal messages, equal keys (map order aside). */
    static ByteString key(Message message) {
        ByteString.Output out = ByteString.newOutput(message.getSerializedSize());
        try {
            CodedOutputStream coded = CodedOutputStream.newInstance(out);
            coded.useDeterministicSerialization();
            message.writeTo(coded);
            coded.flush();
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory failed", e);
        }
        return out.toByteString();
    }
}
