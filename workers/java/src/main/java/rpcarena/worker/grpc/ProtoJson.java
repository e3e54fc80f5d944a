package rpcarena.worker.grpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import rpcarena.worker.core.Json;
import rpcarena.worker.userschema.ProtoJsonParser;
import rpcarena.worker.userschema.UserMethod;

/** Canonical JSON of a protobuf-java generated message, through JsonFormat (proto field names). */
final class ProtoJson implements MessageJson {
    private static final ProtoJsonParser ARENA_PARSER = new ProtoJsonParser(JsonFormat.parser().ignoringUnknownFields());
    private static final JsonFormat.Printer ARENA_PRINTER = JsonFormat.printer().preservingProtoFieldNames();

    private final Message prototype;
    private final ProtoJsonParser parser;
    private final JsonFormat.Printer printer;

    private ProtoJson(Message prototype, ProtoJsonParser parser, JsonFormat.Printer printer) {
        this.prototype = prototype;
        this.parser = parser;
        this.printer = printer;
    }

    /** A message of arena.proto. */
    static ProtoJson arena(Message prototype) {
        return new ProtoJson(prototype, ARENA_PARSER, ARENA_PRINTER);
    }

    /** A message of the user's method, in its JSON ({@link UserMethod#jsonParser}). */
    static ProtoJson user(Message prototype, UserMethod method) {
        return new ProtoJson(prototype, method.jsonParser(), method.jsonPrinter());
    }

    @Override
    public Object fromJson(JsonNode json) throws InvalidProtocolBufferException {
        return parser.parse(json.toString(), prototype);
    }

    /** int64 prints as a JSON string, which canonical-JSON readers accept. */
    @Override
    public JsonNode toJson(Object message) {
        try {
            return Json.MAPPER.readTree(printer.print((Message) message));
        } catch (InvalidProtocolBufferException | JsonProcessingException e) {
            throw new IllegalStateException("a message of this schema did not print as JSON", e);
        }
    }
}
