package rpcarena.worker.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;

/**
 * Plaintext channels (each one HTTP/2 connection): one per load client, or with the spec's
 * {@code connections} M that the load clients share, client i on channel i mod M, many calls in
 * flight on each (grpc-java's channels are made to be shared by threads).
 */
final class Channels {
    private Channels() {}

    /** A load client's channel, and how it lets go of it. */
    interface Lease {
        ManagedChannel channel();

        void release();
    }

    static ManagedChannel open(String target) {
        return NettyChannelBuilder.forTarget(target).usePlaintext().build();
    }

    static void close(ManagedChannel channel) {
        channel.shutdownNow();
        try {
            channel.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A channel of the client's own, closed with it. */
    static Lease own(String target) {
        ManagedChannel channel = open(target);
        return leaseOf(channel, () -> close(channel));
    }

    /** A lease of `channel` that runs `onRelease` when its client lets go. */
    private static Lease leaseOf(ManagedChannel channel, Runnable onRelease) {
        return new Lease() {
            @Override
            public ManagedChannel channel() {
                return channel;
            }

            @Override
            public void release() {
                onRelease.run();
            }
        };
    }

    /**
     * M channels the load clients share: each built by its first client's lease (a workload that
     * opens no connection leaves none to close) and closed when its last client lets go.
     */
    static final class Shared {
        private final String target;
        private final ManagedChannel[] channels;
        private final int[] users;

        Shared(String target, int connections) {
            this.target = target;
            channels = new ManagedChannel[connections];
            users = new int[connections];
        }

        synchronized Lease lease(int client) {
            int i = client % channels.length;
            if (users[i]++ == 0) {
                channels[i] = open(target);
            }
            ManagedChannel channel = channels[i];
            return leaseOf(channel, () -> {
                synchronized (Shared.this) {
                    if (--users[i] == 0) {
                        close(channel);
                        channels[i] = null;
                    }
                }
            });
        }
    }
}
