package rpcarena.worker.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.function.UnaryOperator;
import rpcarena.worker.semantics.Operation;
import rpcarena.worker.semantics.Refused;

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
        add(builder, method.descriptor(), Operation.of(method.name()).on(ProtoMessages.INSTANCE));
    }

    /** A unary method, or a bidi stream answered message by message, by {@code operation}. */
    static void add(ServerServiceDefinition.Builder builder, MethodDescriptor<Object, Object> d,
                    UnaryOperator<Object> operation) {
        if (d.getType() == MethodDescriptor.MethodType.BIDI_STREAMING) {
            builder.addMethod(d, ServerCalls.asyncBidiStreamingCall(replies -> eachInOrder(operation, replies)));
            return;
        }
        builder.addMethod(d, ServerCalls.asyncUnaryCall((request, reply) -> {
            Object answer;
            try {
                answer = operation.apply(request);
            } catch (Refused refused) {
                reply.onError(invalidArgument(refused));
                return;
            }
            reply.onNext(answer);
            reply.onCompleted();
        }));
    }

    /** A refused request is the caller's error: INVALID_ARGUMENT, with the reason. */
    static StatusRuntimeException invalidArgument(Refused refused) {
        return Status.INVALID_ARGUMENT.withDescription(refused.getMessage()).asRuntimeException();
    }

    /** A bidi stream (InvertStream): one reply per message, in order. */
    private static StreamObserver<Object> eachInOrder(UnaryOperator<Object> operation, StreamObserver<Object> replies) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Object request) {
                try {
                    replies.onNext(operation.apply(request));
                } catch (Refused refused) {
                    replies.onError(invalidArgument(refused));
                }
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
