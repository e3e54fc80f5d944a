package rpcarena.worker.core;

/** The decoded payloads of a spec, from which each load client opens its own connection. */
public interface Workload {
    /** How many request/response pairs the spec carries. */
    int slots();

    /** The connection of client i; it connects lazily, so a down server fails calls, not this. */
    Connection open(int client);
}
