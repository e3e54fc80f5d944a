package rpcarena.worker.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import rpcarena.worker.core.JsonValues;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;

/**
 * A spec's method and its requests and expected responses decoded once into grpc-java messages.
 * On a one-way stream's streamed side an item is a JSON array of messages, decoded to an Object[]:
 * a client stream's requests (mode client_stream), a server stream's replies (server_stream).
 */
final class ProtoPayloads {
    final GrpcMethod method;
    private final Object[] requests;
    private final Object[] responses;

    private ProtoPayloads(GrpcMethod method, Object[] requests, Object[] responses) {
        this.method = method;
        this.requests = requests;
        this.responses = responses;
    }

    static ProtoPayloads decode(Spec spec) throws SpecError {
        GrpcMethod method = GrpcMethod.of(spec);
        spec.requirePairs();
        return new ProtoPayloads(method, decodeSide(spec.requests(), method.request(), spec.mode().equals("client_stream")),
                decodeSide(spec.responses(), method.response(), spec.mode().equals("server_stream")));
    }

    private static Object[] decodeSide(List<JsonNode> nodes, MessageJson json, boolean streamed) throws SpecError {
        if (!streamed) {
            return decodeAll(nodes, json);
        }
        Object[] out = new Object[nodes.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode item = nodes.get(i);
            if (!item.isArray()) {
                throw new SpecError("payload " + i + ": a one-way stream's messages are a JSON array");
            }
            List<JsonNode> parts = new ArrayList<>();
            item.forEach(parts::add);
            out[i] = decodeAll(parts, json);
        }
        return out;
    }

    private static Object[] decodeAll(List<JsonNode> nodes, MessageJson json) throws SpecError {
        Object[] out = new Object[nodes.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = json.fromJson(nodes.get(i));
            } catch (IOException | RuntimeException e) {
                throw new SpecError("payload " + i + " does not decode: " + e.getMessage());
            }
        }
        return out;
    }

    int slots() {
        return requests.length;
    }

    Object request(int slot) {
        return requests[slot];
    }

    /** The expected replies of a server stream's call: how many to read (at most one more). */
    int expectedCount(int slot) {
        return ((Object[]) responses[slot]).length;
    }

    /** A reply as expected; a server stream's list of replies: each as expected, no more or fewer. */
    boolean matches(int slot, Object reply) {
        Object expected = responses[slot];
        if (expected instanceof Object[] want) {
            if (!(reply instanceof List<?> got) || got.size() != want.length) {
                return false;
            }
            for (int i = 0; i < want.length; i++) {
                if (!matchesOne(want[i], got.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return matchesOne(expected, reply);
    }

    /** Exact equality first (cheap); else equal as canonical JSON values with the double tolerance. */
    private boolean matchesOne(Object expected, Object reply) {
        if (expected.equals(reply)) {
            return true;
        }
        MessageJson json = method.response();
        return reply != null && reply.getClass() == expected.getClass()
                && JsonValues.equal(json.toJson(expected), json.toJson(reply), JsonValues.DOUBLE_TOLERANCE);
    }
}
