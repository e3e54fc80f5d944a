package rpcarena.worker.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import rpcarena.worker.core.JsonValues;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;

/** A spec's method and its requests and expected responses decoded once into grpc-java messages. */
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
        return new ProtoPayloads(method, decodeAll(spec.requests(), method.request()),
                decodeAll(spec.responses(), method.response()));
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

    /** Exact equality first (cheap); else equal as canonical JSON values with the double tolerance. */
    boolean matches(int slot, Object reply) {
        Object expected = responses[slot];
        if (expected.equals(reply)) {
            return true;
        }
        MessageJson json = method.response();
        return reply != null && reply.getClass() == expected.getClass()
                && JsonValues.equal(json.toJson(expected), json.toJson(reply), JsonValues.DOUBLE_TOLERANCE);
    }
}
