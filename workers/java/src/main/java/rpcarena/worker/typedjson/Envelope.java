package rpcarena.worker.typedjson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import rpcarena.pojo.PojoCatalog;
import rpcarena.worker.core.Json;
import rpcarena.worker.pojo.PojoMessages;
import rpcarena.worker.semantics.Operation;
import rpcarena.worker.semantics.Refused;

/**
 * The calls of rpcarena.contenders.typed_json: a request body is {@code {"@type": "arena.Call",
 * "method": M, "arg": <typed request>}}, an OK reply {@code {"@type": "arena.Result", "value":
 * <typed response>}}, and the method "@hello" asks for the server process's pid and worker count
 * (how a client balancing over server processes tells them apart; this server is one process).
 */
final class Envelope {
    static final String CALL = "arena.Call";
    static final String RESULT = "arena.Result";
    static final String HELLO = "arena.Hello";
    /** Each unary rpc's row of the table, looked up once: a missing row fails the first server. */
    private static final Map<String, UnaryOperator<Object>> OPERATIONS = PojoCatalog.UNARY.keySet().stream()
            .collect(Collectors.toUnmodifiableMap(rpc -> rpc, rpc -> Operation.of(rpc).on(PojoMessages.INSTANCE)));

    private Envelope() {}

    /** A status and a body: what the server writes back for one call frame. */
    record Reply(int status, byte[] body) {
        static Reply error(int status, String message) {
            return new Reply(status, message.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    static byte[] call(String method, Class<?> requestClass, Object request) throws IOException {
        ObjectNode call = Json.MAPPER.createObjectNode().put(Typed.TYPE, CALL).put("method", method);
        call.set("arg", Typed.toTyped(requestClass, request));
        return Json.MAPPER.writeValueAsBytes(call);
    }

    /** One call frame's reply; a bad call is an error reply, never a crash. */
    static Reply answer(byte[] body) {
        JsonNode call;
        try {
            call = Json.MAPPER.readTree(body);
        } catch (IOException e) {
            return Reply.error(Frames.BAD_REQUEST, "not JSON");
        }
        if (call == null || !CALL.equals(call.path(Typed.TYPE).asText(null))) {
            return Reply.error(Frames.BAD_REQUEST, "a call is an object of @type '" + CALL + "'");
        }
        String method = call.path("method").asText("");
        if (method.equals("@hello")) {
            return json(Json.MAPPER.createObjectNode().put(Typed.TYPE, HELLO)
                    .put("pid", ProcessHandle.current().pid()).put("workers", 1));
        }
        Class<?>[] classes = PojoCatalog.UNARY.get(method);
        if (classes == null) {
            return Reply.error(Frames.UNKNOWN_METHOD, "no unary method '" + abbreviate(method) + "'");
        }
        return respond(method, classes, call.get("arg"));
    }

    private static Reply respond(String method, Class<?>[] classes, JsonNode arg) {
        try {
            Object response = OPERATIONS.get(method).apply(Typed.fromTyped(classes[0], arg));
            ObjectNode result = Json.MAPPER.createObjectNode().put(Typed.TYPE, RESULT);
            result.set("value", Typed.toTyped(classes[1], response));
            return json(result);
        } catch (Typed.DecodeError | Refused e) {
            return Reply.error(Frames.BAD_REQUEST, e.getMessage());
        } catch (RuntimeException e) {
            return Reply.error(Frames.INTERNAL, String.valueOf(e.getMessage()));
        }
    }

    private static Reply json(JsonNode value) {
        try {
            return new Reply(Frames.OK, Json.MAPPER.writeValueAsBytes(value));
        } catch (IOException e) {
            return Reply.error(Frames.INTERNAL, e.getMessage());
        }
    }

    /** The plain response of an OK reply's body; DecodeError when it is not a typed result. */
    static Object result(byte[] body, Class<?> responseClass) throws IOException, Typed.DecodeError {
        JsonNode reply = Json.MAPPER.readTree(body);
        if (reply == null || !RESULT.equals(reply.path(Typed.TYPE).asText(null))) {
            throw new Typed.DecodeError("a reply is an object of @type '" + RESULT + "'");
        }
        return Typed.fromTyped(responseClass, reply.get("value"));
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) : s;
    }
}
