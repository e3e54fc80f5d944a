package rpcarena.worker.core;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * When the load clients' warm-up is over: past the spec's {@code warmup_s}, once the JIT is quiet,
 * and never past {@code warmup_max_s}.
 *
 * <p>On the one CPU the clients are pinned to, the C2 compiler shares the CPU with them: after the
 * five seconds the manifest asks, grpc-java's client still compiled most of the time and served
 * 1,100-1,700 calls/s, against 6,500 once compiled (and 4,100-4,600 with C1 only); its cells then
 * measured the compiler ("calls got 79% faster over the measured phase"). So the warm-up goes on,
 * in windows of {@link #WINDOW_NS}, until a window in which the JIT compiled for less than
 * {@link #QUIET_SHARE} of it (JMH warms up by iterations for the same reason). A JVM that does not
 * report its compile time warms up for {@code warmup_s} only.
 */
final class Warmup {
    static final long WINDOW_NS = 1_000_000_000L;
    /** Compiling for under 2% of a window: the hot paths are compiled; what is left is rare code. */
    static final double QUIET_SHARE = 0.02;

    private final long startNs;
    private final long leastNs;
    private final long mostNs;
    private final CompilationMXBean jit;
    private long windowNs;
    private long windowCompiledMs;
    private double lastShare = Double.NaN;
    private volatile long overNs;

    Warmup(double leastS, Double mostS) {
        CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
        this.jit = bean != null && bean.isCompilationTimeMonitoringSupported() ? bean : null;
        this.startNs = System.nanoTime();
        this.leastNs = startNs + (long) (leastS * 1e9);
        this.mostNs = jit == null || mostS == null ? leastNs : startNs + (long) (mostS * 1e9);
        this.windowNs = startNs;
        this.windowCompiledMs = compiledMs();
    }

    /** Whether a client should stop warming up now (and every client from then on). */
    boolean over() {
        if (overNs != 0) {
            return true;
        }
        long now = System.nanoTime();
        if (now < leastNs) {
            return false;
        }
        synchronized (this) {
            if (overNs == 0 && (now >= mostNs || quiet(now))) {
                overNs = now;
            }
            return overNs != 0;
        }
    }

    /** Whether the last whole window's compiling was under the quiet share (a window ends at most every WINDOW_NS). */
    private boolean quiet(long now) {
        if (now - windowNs >= WINDOW_NS) {
            long compiled = compiledMs();
            lastShare = (compiled - windowCompiledMs) * 1e6 / (now - windowNs);
            windowNs = now;
            windowCompiledMs = compiled;
        }
        return lastShare < QUIET_SHARE;
    }

    private long compiledMs() {
        return jit == null ? 0 : jit.getTotalCompilationTime();
    }

    /** How long the warm-up took, in seconds (once over). */
    double seconds() {
        return (overNs - startNs) / 1e9;
    }

    /** What the warm event and the log say of it. */
    String describe() {
        String share = Double.isNaN(lastShare) ? "not measured"
                : String.format(Locale.ROOT, "%.1f%% of the last second", lastShare * 100);
        String why = overNs >= mostNs && mostNs > leastNs ? ", its most: the JIT was still compiling" : "";
        return String.format(Locale.ROOT, "warm-up %.1f s (JIT compiling %s%s)", seconds(), share, why);
    }
}
