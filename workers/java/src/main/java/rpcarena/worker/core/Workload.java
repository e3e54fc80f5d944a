package rpcarena.worker.core;

/** The decoded payloads of a spec, from which each load client opens its own connection. */
public interface Workload {
    /** How many request/response pairs the spec carries. */
    int slots();

    /** The connection of client i; it connects lazily, so a down server fails calls, not this. */
    Connection open(int client);

    /**
     * Whether one connection carries many calls at once (a gRPC channel, typed-json's call ids).
     * Such a workload applies the spec's {@code connections} itself: client i calls over its
     * connection i mod M. Elsewhere the driver pools M connections ({@link Sharing}).
     */
    default boolean multiplexes() {
        return false;
    }
}
