package rpcarena.worker.pojo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import rpcarena.pojo.PojoCatalog;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.JsonValues;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;

/** A spec's requests and expected responses decoded once into the plain Java classes. */
public final class PojoPayloads {
    private final Class<?> responseClass;
    private final Object[] requests;
    private final Object[] responses;

    private PojoPayloads(Class<?>[] classes, Object[] requests, Object[] responses) {
        this.responseClass = classes[1];
        this.requests = requests;
        this.responses = responses;
    }

    public static PojoPayloads decode(Spec spec) throws SpecError {
        Class<?>[] classes = classes(spec.method());
        spec.requirePairs();
        return new PojoPayloads(classes, decodeAll(spec.requests(), classes[0]), decodeAll(spec.responses(), classes[1]));
    }

    /** {request class, response class} of a unary method. */
    public static Class<?>[] classes(String method) throws SpecError {
        Class<?>[] classes = PojoCatalog.UNARY.get(method);
        if (classes == null) {
            throw new SpecError("unknown unary method '" + method + "'");
        }
        return classes;
    }

    private static Object[] decodeAll(List<JsonNode> nodes, Class<?> type) throws SpecError {
        Object[] out = new Object[nodes.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = Json.MAPPER.treeToValue(nodes.get(i), type);
            } catch (JsonProcessingException | IllegalArgumentException e) { // IllegalArgument: a bad number
                throw new SpecError("payload " + i + " is not a " + type.getSimpleName() + ": " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        return out;
    }

    public int slots() {
        return requests.length;
    }

    public Object request(int slot) {
        return requests[slot];
    }

    public Class<?> responseClass() {
        return responseClass;
    }

    /** Exact equality first (cheap); else equal as canonical JSON values with the double tolerance. */
    public boolean matches(int slot, Object reply) {
        Object expected = responses[slot];
        if (expected.equals(reply)) {
            return true;
        }
        return reply != null && JsonValues.equal(Json.MAPPER.valueToTree(expected), Json.MAPPER.valueToTree(reply),
                JsonValues.DOUBLE_TOLERANCE);
    }
}
