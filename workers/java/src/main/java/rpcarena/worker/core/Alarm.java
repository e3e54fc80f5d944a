package rpcarena.worker.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * One client's timer for the open loop: park until a little before the call is due, spin the rest.
 *
 * <p>A parked thread runs 20-60 us after its deadline on this kind of VM (waking an idle virtual
 * CPU, then the scheduler), so it parks until {@link #lead} before the call is due, learnt from the
 * wake-ups it has seen (1.5 times their mean, as the Go driver's alarm does), and spins the rest:
 * about the wake-up's jitter, a few microseconds a call. A fixed spin long enough for the worst
 * wake-up cost the clients' one CPU tens of microseconds a call, taken from the threads that read
 * the replies: at 5,000 calls/s that was half the CPU, and the driver fell behind its schedule.
 */
final class Alarm {
    /** A wake-up later than this is the CPU being busy, which no spin would hide. */
    static final long MAX_LEAD_NS = 60_000;
    private static final long SLACK_NS = 1_000;

    /** The mean wake-up lateness so far (a moving average, weight 1/8). */
    private long lateNs;
    private boolean fine;

    /** Returns when {@code dueNs} has come (at once if it has passed). */
    void waitUntil(long dueNs) {
        if (!fine) {
            fineTimers();
            fine = true;
        }
        long wake = dueNs - lead();
        if (wake - System.nanoTime() > 0) {
            for (long wait = wake - System.nanoTime(); wait > 0; wait = wake - System.nanoTime()) {
                LockSupport.parkNanos(wait);  // may return early (spuriously): parked again for the rest
            }
            learn(System.nanoTime() - wake);
        }
        while (System.nanoTime() - dueNs < 0) {
            Thread.onSpinWait();
        }
    }

    long lead() {
        return Math.min(lateNs * 3 / 2, MAX_LEAD_NS);
    }

    private void learn(long late) {
        lateNs += (Math.min(late, MAX_LEAD_NS) - lateNs) / 8;
    }

    /**
     * Ask Linux to wake this thread within 1 us of its deadline (the default slack is 50 us). Java
     * has no prctl: /proc/TID/timerslack_ns does the same. Elsewhere, or refused, the spin covers it.
     */
    private static void fineTimers() {
        try {
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            Files.writeString(Path.of("/proc", self.getFileName().toString(), "timerslack_ns"), Long.toString(SLACK_NS));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            // not Linux, or not allowed: the default slack, covered in part by the spin
        }
    }
}
