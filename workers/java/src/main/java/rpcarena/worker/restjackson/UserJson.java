package rpcarena.worker.restjackson;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.nio.charset.StandardCharsets;
import rpcarena.worker.http.HttpArenaServer;
import rpcarena.worker.userschema.ProtoJsonParser;
import rpcarena.worker.userschema.UserHandler;
import rpcarena.worker.userschema.UserMethod;

/**
 * A user's method over REST: POST /package.Service/Method with proto JSON bodies, the mapping
 * rest-fastapi and rest-go serve it on, so any client calls any server. The bodies are the schema's
 * generated messages written and read by protobuf-java-util's JsonFormat: what a Java user of a
 * proto schema over HTTP writes (Jackson on plain classes would need classes generated from the
 * schema, and proto JSON's int64-as-string, enum and oneof rules written again). Enums go as
 * numbers, as the canonical replies hold them ({@link UserMethod#jsonParser}); a key the message has
 * no field for is the caller's 400, never a field dropped from what is measured.
 */
final class UserJson {
    static final String CONTENT_TYPE = "application/json";

    private final ProtoJsonParser parser;
    private final JsonFormat.Printer printer;

    UserJson(UserMethod method) {
        this.parser = method.jsonParser();
        this.printer = method.jsonPrinter();
    }

    static String path(String key) {
        return "/" + key;
    }

    /** Adds the user's method to {@code server}: a body that is not its request is the caller's 400. */
    static void route(HttpArenaServer server, UserHandler handler) {
        Message prototype = handler.method().request();
        UserJson json = new UserJson(handler.method());
        server.route(path(handler.method().key()), CONTENT_TYPE,
                body -> json.write(handler.answer(json.read(body, prototype))));
    }

    Message read(byte[] body, Message prototype) throws InvalidProtocolBufferException {
        return parser.parse(new String(body, StandardCharsets.UTF_8), prototype);
    }

    byte[] write(Message message) throws InvalidProtocolBufferException {
        return printer.print(message).getBytes(StandardCharsets.UTF_8);
    }
}
