package rpcarena.worker.core;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * {@link #QUIET_SHARE} of it (JMH warms up by iterations for the same reason).
 *
 * <p>The JIT's time is its compiler threads' CPU (Linux: each thread's schedstat). The JVM's own
 * {@code getTotalCompilationTime} counts a compile once it ends: a C2 compile starved of the CPU
 * for seconds left whole windows at zero, and the warm-up ended while C2 was still busy (a run
 * then measured 2,545 calls/s where the next measured 9,640). Where /proc cannot be read, that
 * count is used; a JVM that reports neither warms up for {@code warmup_s} only.
 *
 * <p>{@code watched}: other processes whose JIT must be quiet too (a server JVM on this host, by pid,
 * read from its /proc in the same way): a driver kept warm from cell to cell ({@code drive --many}) warms
 * up for a cell's own seconds, and the server it calls may still be compiling for that cell's workload.
 */
final class Warmup {
    static final long WINDOW_NS = 1_000_000_000L;
    /** Compiling for under 2% of a window: the hot paths are compiled; what is left is rare code. */
    static final double QUIET_SHARE = 0.02;

    private final long startNs;
    private final long leastNs;
    private final long mostNs;
    private final CompilationMXBean jit;
    private final boolean threads;
    private final long[] watched;
    private long windowNs;
    private long windowCompiledNs;
    private double lastShare = Double.NaN;
    private volatile long overNs;

    Warmup(double leastS, Double mostS) {
        this(leastS, mostS, new long[0]);
    }

    Warmup(double leastS, Double mostS, long[] watched) {
        CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
        this.jit = bean != null && bean.isCompilationTimeMonitoringSupported() ? bean : null;
        this.threads = compilerThreadsCpuNs() >= 0;
        this.watched = watched.clone();
        this.startNs = System.nanoTime();
        this.leastNs = startNs + (long) (leastS * 1e9);
        this.mostNs = (jit == null && !threads) || mostS == null ? leastNs : startNs + (long) (mostS * 1e9);
        this.windowNs = startNs;
        this.windowCompiledNs = compiledNs();
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
            long compiled = compiledNs();
            lastShare = Math.max(0, compiled - windowCompiledNs) / (double) (now - windowNs);
            windowNs = now;
            windowCompiledNs = compiled;
        }
        return lastShare < QUIET_SHARE;
    }

    /**
     * The JIT's time so far, in ns: its threads' CPU (and the watched processes'), else the JVM's count of
     * ended compiles.
     */
    private long compiledNs() {
        if (threads) {
            long sum = Math.max(0, compilerThreadsCpuNs());
            for (long pid : watched) {
                sum += Math.max(0, compilerThreadsCpuNs(Path.of("/proc", Long.toString(pid))));  // gone: 0
            }
            return sum;
        }
        return jit == null ? 0 : jit.getTotalCompilationTime() * 1_000_000L;
    }

    /**
     * The CPU the JIT's compiler threads ("C1 CompilerThre", "C2 CompilerThre") have used, in ns,
     * from /proc/self/task/TID/schedstat; -1 where that cannot be read (not Linux). A compiler
     * thread the JVM ends when its queue is empty takes its time with it: only when it is idle.
     */
    static long compilerThreadsCpuNs() {
        return compilerThreadsCpuNs(Path.of("/proc/self"));
    }

    /** The same for the process whose /proc folder is {@code proc}. */
    static long compilerThreadsCpuNs(Path proc) {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(proc.resolve("task"))) {
            for (Path task : tasks) {
                sum += compilerCpuNs(task);
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return sum;
    }

    /** One thread's CPU in ns if it is a compiler thread, else 0 (also when it ended as it was read). */
    private static long compilerCpuNs(Path task) {
        try {
            String name = Files.readString(task.resolve("comm")).trim();
            if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) {
                return 0;
            }
            return Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
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
