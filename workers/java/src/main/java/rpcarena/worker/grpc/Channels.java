package rpcarena.worker.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;

/** One plaintext channel (so one HTTP/2 connection) per load client. */
final class Channels {
    private Channels() {}

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
}
