package rpcarena.worker.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import rpcarena.worker.core.SpecError;

/** Test access: a grpc-java reply of a method as canonical JSON. */
public final class GrpcReplies {
    private GrpcReplies() {}

    public static JsonNode json(String method, Object reply) throws SpecError {
        return GrpcMethod.byName(method).response().toJson(reply);
    }
}
