package rpcarena.worker.userschema;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What a handler spends before it answers: {@code --server-work} of its own thread's CPU, then
 * {@code --server-wait} asleep, as a database call waits (src/rpcarena/userschema/work.py, and
 * the Go worker's work.go). The CPU is the thread's own clock, not wall time a preempted server
 * would stretch; the loop runs in chunks calibrated at start ({@value #CHUNK_US} us of CPU, or a
 * twentieth of the work if less), so the clock is read a few dozen times a call.
 */
public final class Cost {
    static final int CALIBRATION_ROUNDS = 5;
    static final int CALIBRATION_LOOPS = 200_000;
    static final double CHUNK_US = 10.0;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Where the spin's sums go, so the JIT cannot drop the loop as dead code. */
    private static volatile long sink;

    private final long workNs;
    private final long waitNs;
    private final int chunk;
    private final String calibration;

    private Cost(long workNs, long waitNs, int chunk, String calibration) {
        this.workNs = workNs;
        this.waitNs = waitNs;
        this.chunk = chunk;
        this.calibration = calibration;
    }

    /** The cost of {@code workUs} of CPU and {@code waitUs} of waiting, calibrated here, once. */
    public static Cost of(double workUs, double waitUs) {
        if (workUs == 0 && waitUs == 0) {
            return new Cost(0, 0, 0, "no server work or wait");
        }
        double rate = workUs > 0 ? loopsPerUs() : 0;
        int chunk = (int) Math.max(1, Math.round(Math.min(CHUNK_US, workUs / 20) * rate));
        String line = String.format(Locale.ROOT, "server work %sus of thread CPU, in chunks of %d loops (%.1f loops/us), wait %sus",
                number(workUs), chunk, rate, number(waitUs));
        return new Cost((long) (workUs * 1000), (long) (waitUs * 1000), chunk, line);
    }

    /** What the server logs: the work, the chunk and the rate it was calibrated to. */
    public String calibration() {
        return calibration;
    }

    /** Spends the work on the calling thread, then waits. */
    public void spend() {
        if (workNs > 0) {
            long start = THREADS.getCurrentThreadCpuTime();
            while (THREADS.getCurrentThreadCpuTime() - start < workNs) {
                spin(chunk);
            }
        }
        if (waitNs > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(waitNs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();  // the server is stopping: answer without the rest of the wait
            }
        }
    }

    /**
     * Spends the cost {@code calls} times on the calling thread, as a handler would, and returns that
     * thread's CPU over them, ns (the worker's {@code calibrate}).
     */
    public long spendTimes(int calls) {
        long start = THREADS.getCurrentThreadCpuTime();
        for (int k = 0; k < calls; k++) {
            spend();
        }
        return THREADS.getCurrentThreadCpuTime() - start;
    }

    /** How many spin loops this thread runs in a microsecond of its CPU (the best of a few rounds). */
    static double loopsPerUs() {
        long best = Long.MAX_VALUE;
        for (int round = 0; round < CALIBRATION_ROUNDS; round++) {
            long start = THREADS.getCurrentThreadCpuTime();
            spin(CALIBRATION_LOOPS);
            best = Math.min(best, THREADS.getCurrentThreadCpuTime() - start);
        }
        return CALIBRATION_LOOPS / Math.max(best / 1000.0, 1e-3);
    }

    private static void spin(int loops) {
        long total = 0;
        for (long i = 0; i < loops; i++) {
            total += i * i % 7;
        }
        sink += total;
    }

    /** 50 as "50", 2.5 as "2.5": Python's and Go's %g of the same numbers. */
    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
