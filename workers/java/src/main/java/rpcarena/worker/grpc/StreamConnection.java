package rpcarena.worker.grpc;

import io.grpc.CallOptions;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import rpcarena.worker.core.CallFailure;
import rpcarena.worker.core.Failures;

/** One bidirectional InvertStream kept open; a call is one Word sent and its reply received. */
final class StreamConnection extends LeasedConnection {
    private static final Object END = new Object();

    private ClientCallStreamObserver<Object> requests;
    private BlockingQueue<Object> replies;

    /** Opens the stream now: before the warm-up, as the contract says. */
    StreamConnection(Channels.Lease lease, ProtoPayloads payloads, Duration timeout) {
        super(lease, payloads, timeout);
        openStream();
    }

    private void openStream() {
        BlockingQueue<Object> queue = new LinkedBlockingQueue<>();  // one per stream: no stale replies
        replies = queue;
        requests = (ClientCallStreamObserver<Object>) ClientCalls.asyncBidiStreamingCall(
                channel.newCall(payloads.method.descriptor(), CallOptions.DEFAULT), new StreamObserver<Object>() {
                    @Override
                    public void onNext(Object reply) {
                        queue.add(reply);
                    }

                    @Override
                    public void onError(Throwable t) {
                        queue.add(t);
                    }

                    @Override
                    public void onCompleted() {
                        queue.add(END);
                    }
                });
    }

    @Override
    public Object exchange(int slot) throws Exception {
        if (requests == null) {
            openStream();
        }
        requests.onNext(payloads.request(slot));
        Object reply = replies.poll(timeoutNs, TimeUnit.NANOSECONDS);
        if (reply == null) {
            throw new CallFailure(Failures.TIMEOUT, "no reply on the stream within the timeout");
        }
        if (reply instanceof Throwable t) {
            throw GrpcFailures.of(t);
        }
        if (reply == END) {
            throw new CallFailure(Failures.CONNECTION, "the server ended the stream");
        }
        return reply;
    }

    /** Cancels the stream (its state is unknown after a failure); the next call opens another. */
    @Override
    public void reconnect() {
        if (requests != null) {
            requests.cancel("reconnecting after a failed call", null);
            requests = null;
        }
        super.reconnect();
    }

    @Override
    public void close() {
        if (requests != null) {
            requests.onCompleted();
        }
        super.close();
    }
}
