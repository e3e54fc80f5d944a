package rpcarena.worker.grpc;

import com.google.protobuf.Message;
import io.grpc.ServerServiceDefinition;
import rpcarena.worker.userschema.UserHandler;

/**
 * The user's service, with the one method of the run: what the generated {@code *Grpc} class's
 * {@code bindService} builds (ServerCalls.asyncUnaryCall, or a bidi stream answered in order),
 * from a MethodDescriptor of the generated messages made at run time.
 */
final class UserService {
    private UserService() {}

    static ServerServiceDefinition definition(UserHandler handler) {
        GrpcMethod method = GrpcMethod.user(handler.method());
        ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(handler.method().service());
        ArenaService.add(builder, method.descriptor(), request -> handler.answer((Message) request));
        return builder.build();
    }
}
