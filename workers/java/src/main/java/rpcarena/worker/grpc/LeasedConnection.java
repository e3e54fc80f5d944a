package rpcarena.worker.grpc;

import io.grpc.ManagedChannel;
import java.time.Duration;
import rpcarena.worker.core.Connection;

/**
 * What every grpc-java client connection shares: a lease of a channel (the client's own or a
 * shared one), the payloads it sends and checks, and the spec's deadline; each kind of call
 * ({@link UnaryConnection}, {@link StreamConnection}, {@link OneWayConnection}) adds its exchange.
 */
abstract class LeasedConnection implements Connection {
    protected final ManagedChannel channel;
    protected final ProtoPayloads payloads;
    protected final long timeoutNs;
    private final Channels.Lease lease;

    LeasedConnection(Channels.Lease lease, ProtoPayloads payloads, Duration timeout) {
        this.lease = lease;
        this.channel = lease.channel();
        this.payloads = payloads;
        this.timeoutNs = timeout.toNanos();
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
