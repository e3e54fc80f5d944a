package rpcarena.worker.grpc;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import rpcarena.worker.semantics.Refused;
import rpcarena.worker.userschema.UserHandler;

/**
 * The user's service, with the one method of the run: what the generated {@code *Grpc} class's
 * {@code bindService} builds (ServerCalls.asyncUnaryCall, a bidi stream answered in order, or a
 * one-way stream), from a MethodDescriptor of the generated messages made at run time. As grpc-go
 * answers them: a client stream gets the reply to its last request, a server stream the reply to
 * its one request K times (served.json's stream_messages); the handler's cost is spent once a call.
 */
final class UserService {
    private UserService() {}

    static ServerServiceDefinition definition(UserHandler handler) {
        GrpcMethod method = GrpcMethod.user(handler.method());
        MethodDescriptor<Object, Object> d = method.descriptor();
        ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(handler.method().service());
        switch (d.getType()) {
            case CLIENT_STREAMING -> builder.addMethod(d, ServerCalls.asyncClientStreamingCall(
                    replies -> lastAnswered(handler, replies)));
            case SERVER_STREAMING -> builder.addMethod(d, ServerCalls.asyncServerStreamingCall(
                    (request, replies) -> answeredTimes(handler, (Message) request, replies)));
            default -> ArenaService.add(builder, d, request -> handler.answer((Message) request));
        }
        return builder.build();
    }

    /** A client stream read to its end, keeping only the last request (memory bounded), then answered. */
    private static StreamObserver<Object> lastAnswered(UserHandler handler, StreamObserver<Object> replies) {
        return new StreamObserver<>() {
            private Message last;

            @Override
            public void onNext(Object request) {
                last = (Message) request;
            }

            @Override
            public void onError(Throwable t) {
                // the client went away; nothing to answer
            }

            @Override
            public void onCompleted() {
                if (last == null) {
                    replies.onError(Status.INVALID_ARGUMENT.withDescription("an empty stream: no request to answer")
                            .asRuntimeException());
                    return;
                }
                answeredTimes(handler, last, replies, 1);
            }
        };
    }

    private static void answeredTimes(UserHandler handler, Message request, StreamObserver<Object> replies) {
        answeredTimes(handler, request, replies, handler.streamMessages());
    }

    /** The request answered once (its cost spent once), the answer sent {@code times} times, then the end. */
    private static void answeredTimes(UserHandler handler, Message request, StreamObserver<Object> replies, int times) {
        Message answer;
        try {
            answer = handler.answer(request);
        } catch (Refused refused) {
            replies.onError(ArenaService.invalidArgument(refused));
            return;
        }
        for (int i = 0; i < times; i++) {
            replies.onNext(answer);
        }
        replies.onCompleted();
    }
}
