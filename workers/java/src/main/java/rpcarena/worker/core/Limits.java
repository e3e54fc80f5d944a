package rpcarena.worker.core;

/**
 * The bounds every server keeps against a hostile peer (docs/worker-contract.md, "Bounds every
 * server keeps"): the largest request a server reads, and how long a connection may stay idle or
 * leave its replies untaken. The same numbers, and the same setting, in every language.
 */
public final class Limits {
    /**
     * The largest request any server reads: a gRPC message, an HTTP body, an own-protocol frame.
     * The largest workload request is about 120 KB; 4 MiB is gRPC's default and over thirty times that.
     */
    public static final int MAX_REQUEST_BYTES = 4 << 20;
    /** Lowers the idle timeout (seconds), so a test sees an idle connection closed in a second. */
    public static final String IDLE_ENV = "RPCARENA_IDLE_TIMEOUT_S";
    private static final int DEFAULT_IDLE_MS = 60_000;

    private Limits() {}

    /** 60 s, or RPCARENA_IDLE_TIMEOUT_S when that is a positive number below it. */
    public static int idleTimeoutMs() {
        return idleTimeoutMs(System.getenv(IDLE_ENV));
    }

    static int idleTimeoutMs(String value) {
        double seconds;
        try {
            seconds = Double.parseDouble(value == null ? "" : value.trim());
        } catch (NumberFormatException e) {
            return DEFAULT_IDLE_MS;
        }
        return seconds > 0 && seconds * 1000 < DEFAULT_IDLE_MS ? (int) Math.max(1, seconds * 1000) : DEFAULT_IDLE_MS;
    }
}
