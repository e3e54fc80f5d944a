package rpcarena.worker.grpc;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import rpcarena.worker.core.CallFailure;
import rpcarena.worker.core.Failures;

/**
 * A user's client- or server-streaming method: a call is one stream, as the generated stubs make
 * it (grpc-go's oneway.go does the same). A client stream sends the call's K requests, half-closes
 * and waits for the one reply; a server stream sends one request and reads the replies to the
 * stream's end, at most one more than expected (a longer stream is a wrong answer already: the
 * rest is not read into memory, the call is cancelled).
 */
final class OneWayConnection extends LeasedConnection {
    /** The last exchange's reply messages' latencies, from the stream's start or the one before. */
    private long[] latencies = NO_MESSAGES;

    OneWayConnection(Channels.Lease lease, ProtoPayloads payloads, Duration timeout) {
        super(lease, payloads, timeout);
    }

    @Override
    public long[] messageLatenciesNs() {
        return latencies;
    }

    private ClientCall<Object, Object> newCall() {
        return channel.newCall(payloads.method.descriptor(),
                CallOptions.DEFAULT.withDeadlineAfter(timeoutNs, TimeUnit.NANOSECONDS));
    }

    @Override
    public Object exchange(int slot) throws Exception {
        latencies = NO_MESSAGES;
        long start = System.nanoTime();
        if (payloads.method.descriptor().getType() == MethodType.CLIENT_STREAMING) {
            Object reply = upload((Object[]) payloads.request(slot));
            latencies = new long[] {System.nanoTime() - start};
            return reply;
        }
        return follow(payloads.request(slot), payloads.expectedCount(slot), start);
    }

    /** Sends the requests, half-closes, and waits for the one reply (CloseAndRecv). */
    private Object upload(Object[] requests) throws Exception {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        StreamObserver<Object> stream = ClientCalls.asyncClientStreamingCall(newCall(), new StreamObserver<>() {
            @Override
            public void onNext(Object message) {
                reply.complete(message);
            }

            @Override
            public void onError(Throwable t) {
                reply.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {  // after a reply this changes nothing
                reply.completeExceptionally(new CallFailure(Failures.OTHER, "the server ended the stream without a reply"));
            }
        });
        for (Object request : requests) {
            stream.onNext(request);
        }
        stream.onCompleted();
        try {
            // the call's deadline ends it first; this bound only guards against a lost callback
            return reply.get(2 * timeoutNs, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CallFailure failure ? failure : GrpcFailures.of(e.getCause());
        } catch (TimeoutException e) {
            throw new CallFailure(Failures.TIMEOUT, "no reply to the client stream within the timeout");
        }
    }

    /** Sends the request and reads the replies to the end, at most {@code expected + 1}, each timed. */
    private Object follow(Object request, int expected, long start) throws Exception {
        ClientCall<Object, Object> call = newCall();
        Iterator<Object> replies = ClientCalls.blockingServerStreamingCall(call, request);
        List<Object> got = new ArrayList<>();
        long[] times = new long[expected + 1];
        long last = start;
        try {
            while (got.size() <= expected && replies.hasNext()) {
                Object reply = replies.next();
                long now = System.nanoTime();
                times[got.size()] = now - last;
                last = now;
                got.add(reply);
            }
        } catch (StatusRuntimeException e) {
            throw GrpcFailures.of(e);
        }
        latencies = java.util.Arrays.copyOf(times, got.size());
        if (got.size() > expected) {
            call.cancel("more replies than expected: the answer is wrong already", null);
        }
        return got;
    }
}
