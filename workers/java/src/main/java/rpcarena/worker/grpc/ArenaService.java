package rpcarena.worker.grpc;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.function.UnaryOperator;
import rpcarena.arena.ArenaGrpc;
import rpcarena.arena.Word;

/** Service arena.Arena built from its generated descriptor: every method, none written by hand. */
final class ArenaService {
    private ArenaService() {}

    static ServerServiceDefinition definition() {
        ServiceDescriptor service = ArenaGrpc.getServiceDescriptor();
        ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(service);
        for (MethodDescriptor<?, ?> method : service.getMethods()) {
            add(builder, cast(method));
        }
        return builder.build();
    }

    @SuppressWarnings("unchecked")
    static MethodDescriptor<Message, Message> cast(MethodDescriptor<?, ?> method) {
        return (MethodDescriptor<Message, Message>) method;
    }

    private static void add(ServerServiceDefinition.Builder builder, MethodDescriptor<Message, Message> method) {
        if (method.getType() == MethodDescriptor.MethodType.BIDI_STREAMING) {
            builder.addMethod(method, ServerCalls.asyncBidiStreamingCall(ArenaService::invertStream));
            return;
        }
        UnaryOperator<Message> logic = ProtoSemantics.of(method.getBareMethodName());
        builder.addMethod(method, ServerCalls.asyncUnaryCall((request, reply) -> {
            reply.onNext(logic.apply(request));
            reply.onCompleted();
        }));
    }

    /** InvertStream, the one streaming method: one inverted Word per Word, in order. */
    private static StreamObserver<Message> invertStream(StreamObserver<Message> replies) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Message word) {
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
