package rpcarena.worker.core;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.function.Supplier;

/** One load client: warm up (for a time, or until the JIT is quiet), wait at the barrier, then call as the plan says. */
final class ClientRun implements Runnable {
    private static final long LATE_NS = 1_000_000;

    private final int index;
    private final Connection connection;
    private final int slots;
    private final Warmup warmup;
    private final CyclicBarrier barrier;
    private final Supplier<Plan> plan;
    private final Reservoir reservoir;
    final Tally tally;
    /** A staged open loop: a tally per stage, a call counted in the stage it was due in. */
    final Tally[] staged;
    volatile long endNs;
    volatile Throwable crash;

    ClientRun(int index, Connection connection, int slots, Warmup warmup, CyclicBarrier barrier,
              Supplier<Plan> plan, Reservoir reservoir, int stages, double intervalS) {
        this.index = index;
        this.connection = connection;
        this.slots = slots;
        this.warmup = warmup;
        this.barrier = barrier;
        this.plan = plan;
        this.reservoir = reservoir;
        this.tally = new Tally(intervalS);
        this.staged = new Tally[stages];
        for (int k = 0; k < stages; k++) {
            staged[k] = new Tally();
        }
    }

    @Override
    public void run() {
        try {
            warmUp();
            barrier.await();
            measure(plan.get());
        } catch (InterruptedException | BrokenBarrierException e) {
            Thread.currentThread().interrupt();
            crash = e;
        } catch (RuntimeException | Error e) {
            crash = e;
            barrier.reset();  // the others would wait forever
        } finally {
            endNs = System.nanoTime();
        }
    }

    private void warmUp() {
        for (int k = 0; !warmup.over(); k++) {
            call(slot(k), Plan.NOW, false);
        }
    }

    private void measure(Plan plan) {
        int k = 0;
        tally.series.begin(System.nanoTime());  // within microseconds of the barrier's release
        for (long due = plan.next(index); due != Plan.DONE; due = plan.next(index)) {
            call(slot(k++), due, true);
        }
        tally.series.close();
    }

    /** Client i sends requests[(i + k) mod len] on its k-th call. */
    private int slot(int k) {
        return (int) ((index + (long) k) % slots);
    }

    private void call(int slot, long due, boolean measured) {
        long sent = System.nanoTime();
        long begin = due == Plan.NOW ? sent : due;  // open loop: from the intended start (wrk2)
        if (measured && sent - begin > LATE_NS) {
            tally.lateCalls++;
        }
        if (measured) {
            tally.series.at(begin);
        }
        try {
            Object reply = connection.exchange(slot);
            long done = System.nanoTime();
            // a pooled call is timed as its caller sees it, its wait for a connection included, as
            // the Go, Python and Rust clients time it (the wait alone is the connection's histogram)
            if (!connection.verify(slot, reply)) {
                count(measured, Failures.WRONG_ANSWER);
            } else if (measured) {
                tally.ok(done - begin, done - sent, sent - begin);
                tally.messages(connection.messageLatenciesNs());
                reservoir.offer(done - begin);
                if (staged.length > 0) {
                    staged[plan.get().stage(due)].ok(done - begin, done - sent, sent - begin);
                }
            }
        } catch (Exception e) {
            String kind = Failures.kind(e);
            count(measured, kind);
            if (Failures.needsReconnect(kind)) {
                connection.reconnect();
            }
        }
    }

    private void count(boolean measured, String kind) {
        if (measured) {
            tally.error(kind);
        }
    }
}
