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

    private static final String SOMAXCONN = "/proc/sys/net/core/somaxconn";

    private Limits() {}

    /**
     * The longest accept queue this system allows: every server listens with it. Read as a stream
     * to its end: {@code Files.readString} of this /proc file (size 0) gave "4" of "4096".
     */
    public static int listenBacklog() {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(java.nio.file.Path.of(SOMAXCONN))) {
            return Math.max(128, Integer.parseInt(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim()));
        } catch (java.io.IOException | NumberFormatException e) {
            return 4096;
        }
    }

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
