package rpcarena.worker.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.function.UnaryOperator;
import rpcarena.worker.semantics.Operation;

/**
 * Service arena.Arena built from its method descriptors: every method, none written by hand;
 * what each one answers is its row of {@link Operation}.
 */
final class ArenaService {
    private ArenaService() {}

    static ServerServiceDefinition definition() {
        ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(GrpcMethod.SERVICE);
        for (GrpcMethod method : GrpcMethod.ALL) {
            add(builder, method);
        }
        return builder.build();
    }

    private static void add(ServerServiceDefinition.Builder builder, GrpcMethod method) {
        MethodDescriptor<Object, Object> d = method.descriptor();
        UnaryOperator<Object> operation = Operation.of(method.name()).on(ProtoMessages.INSTANCE);
        if (d.getType() == MethodDescriptor.MethodType.BIDI_STREAMING) {
            builder.addMethod(d, ServerCalls.asyncBidiStreamingCall(replies -> eachInOrder(operation, replies)));
            return;
        }
        builder.addMethod(d, ServerCalls.asyncUnaryCall((request, reply) -> {
            reply.onNext(operation.apply(request));
            reply.onCompleted();
        }));
    }

    /** A bidi stream (InvertStream): one reply per message, in order. */
    private static StreamObserver<Object> eachInOrder(UnaryOperator<Object> operation, StreamObserver<Object> replies) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Object request) {
                replies.onNext(operation.apply(request));
            }

            @Override
            public void onError(Throwable t) {
                // the client went away; nothing to answer
            }

            @Override
            public void onCompleted() {
                replies.onCompleted();
            }
        };
    }
}
