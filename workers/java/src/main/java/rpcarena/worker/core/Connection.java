package rpcarena.worker.core;

/** One load client's connection (HTTP keep-alive connection, gRPC channel, TCP socket, stream). */
public interface Connection extends AutoCloseable {
    /**
     * The timed part of a call: encode request {@code slot}, send, receive, decode. Failures are
     * thrown as they come; {@link Failures} names their kind.
     */
    Object exchange(int slot) throws Exception;

    /** The untimed check: does {@code reply} equal the expected response of {@code slot}? */
    boolean verify(int slot, Object reply);

    /** Drops the connection after a failure; the next exchange connects again. */
    void reconnect();

    /**
     * A one-way stream's last exchange: each reply message's latency (ns), from the stream's start
     * or the message before it, recorded per message; empty for other calls.
     */
    default long[] messageLatenciesNs() {
        return NO_MESSAGES;
    }

    long[] NO_MESSAGES = {};

    @Override
    void close();
}
