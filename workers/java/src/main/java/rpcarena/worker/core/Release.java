package rpcarena.worker.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Open loop with a dedicated pacer thread: it waits for each call of the schedule to fall due and
 * releases it then to whichever client is free; the clients only block on the queue.
 *
 * <p>When every client waited for its own calls, each spun (yielding) through the last stretch
 * before them; on the one CPU the clients are pinned to, those spins took the CPU from the threads
 * that read the replies, and the driver fell behind its schedule (1.8 ms late at 1,245 calls/s,
 * and a third of the rate at 3,735). One pacer that parks with a fine timer slack and spins only
 * the last {@link #SPIN_NS} costs the clients a wake-up instead; and the pacer hands each call over
 * {@link #HANDOFF_NS} before it is due, so that wake-up (tens of us on an idle CPU) is over by then:
 * the client that takes it spins the rest itself, and sends on time.
 */
final class Release implements Plan {
    /** Parking with a 1 us timer slack wakes up ~20 us late on a busy CPU: spun, not parked. */
    static final long SPIN_NS = 30_000;
    private static final long SLACK_NS = 1_000;
    /** A client blocked on the queue runs ~20-60 us after it is handed a call: it gets each call this early. */
    static final long HANDOFF_NS = 80_000;

    private final Plan schedule;
    private final BlockingQueue<Long> due = new LinkedBlockingQueue<>();
    private final Thread pacer;
    private final int clients;

    Release(Plan schedule, int clients) {
        this.schedule = schedule;
        this.clients = clients;
        this.pacer = new Thread(this::pace, "pacer");
        pacer.setDaemon(true);  // never keeps the worker alive: stop() ends it, exit kills it
        pacer.setPriority(Thread.MAX_PRIORITY);
    }

    Release start() {
        pacer.start();
        return this;
    }

    @Override
    public long next(int client) {
        try {
            long at = due.take();
            while (at != DONE && System.nanoTime() < at) {
                Thread.onSpinWait();
            }
            return at;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DONE;
        }
    }

    @Override
    public int stage(long dueNs) {
        return schedule.stage(dueNs);
    }

    @Override
    public void stop() {
        pacer.interrupt();
    }

    /** Each call released at its due time; then one DONE for each client. */
    private void pace() {
        fineTimers();
        for (long at = schedule.next(0); at != DONE && !pacer.isInterrupted(); at = schedule.next(0)) {
            waitUntil(at - HANDOFF_NS);
            due.add(at);
        }
        for (int i = 0; i < clients; i++) {
            due.add(DONE);
        }
    }

    /** Park coarse, finish fine: park to SPIN_NS before the call is due, then spin until it is. */
    private static void waitUntil(long dueNs) {
        Thread self = Thread.currentThread();
        for (long wait = dueNs - System.nanoTime(); wait > SPIN_NS && !self.isInterrupted();
             wait = dueNs - System.nanoTime()) {
            LockSupport.parkNanos(wait - SPIN_NS);
        }
        while (System.nanoTime() < dueNs) {
            Thread.onSpinWait();
        }
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
