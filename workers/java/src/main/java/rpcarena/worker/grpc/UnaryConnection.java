package rpcarena.worker.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import rpcarena.worker.core.Connection;

/** Blocking unary calls on the client's channel (its own or a shared one), each with the spec's deadline. */
final class UnaryConnection implements Connection {
    private final Channels.Lease lease;
    private final ManagedChannel channel;
    private final ProtoPayloads payloads;
    private final long timeoutNs;

    UnaryConnection(Channels.Lease lease, ProtoPayloads payloads, Duration timeout) {
        this.lease = lease;
        this.channel = lease.channel();
        this.payloads = payloads;
        this.timeoutNs = timeout.toNanos();
    }

    @Override
    public Object exchange(int slot) throws Exception {
        try {
            return ClientCalls.blockingUnaryCall(channel, payloads.method.descriptor(),
                    CallOptions.DEFAULT.withDeadlineAfter(timeoutNs, TimeUnit.NANOSECONDS), payloads.request(slot));
        } catch (StatusRuntimeException e) {
            throw GrpcFailures.of(e);
        }
    }

    @Override
    public boolean verify(int slot, Object reply) {
        return payloads.matches(slot, reply);
    }

    /** The channel reconnects by itself; skip its back-off so the next call tries at once. */
    @Override
    public void reconnect() {
        channel.resetConnectBackoff();
    }

    @Override
    public void close() {
        lease.release();
    }
}
