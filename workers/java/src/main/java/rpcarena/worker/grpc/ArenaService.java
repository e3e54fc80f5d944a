package rpcarena.worker.grpc;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.function.UnaryOperator;
import rpcarena.arena.Word;

/** Service arena.Arena built from its method descriptors: every method, none written by hand. */
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
        if (d.getType() == MethodDescriptor.MethodType.BIDI_STREAMING) {
            builder.addMethod(d, ServerCalls.asyncBidiStreamingCall(ArenaService::invertStream));
            return;
        }
        UnaryOperator<Object> logic = logic(method);
        builder.addMethod(d, ServerCalls.asyncUnaryCall((request, reply) -> {
            reply.onNext(logic.apply(request));
            reply.onCompleted();
        }));
    }

    private static UnaryOperator<Object> logic(GrpcMethod method) {
        if (method.int32Echo()) {
            return request -> request;
        }
        UnaryOperator<Message> logic = ProtoSemantics.of(method.name());
        return request -> logic.apply((Message) request);
    }

    /** InvertStream, the one streaming method: one inverted Word per Word, in order. */
    private static StreamObserver<Object> invertStream(StreamObserver<Object> replies) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Object word) {
                replies.onNext(ProtoSemantics.invert((Word) word));
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
