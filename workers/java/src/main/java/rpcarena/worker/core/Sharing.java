package rpcarena.worker.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The spec's {@code connections}: the load clients sharing M connections. Where a connection
 * multiplexes (a gRPC channel) the workload spreads the clients over M itself and this only
 * counts the calls in flight; elsewhere (HTTP/1.1, tcp-raw: no call id to match a reply to its
 * call) a call borrows a free connection from a FIFO pool and gives it back, its wait timed.
 */
final class Sharing implements AutoCloseable {
    private final Workload workload;
    private final int connections;
    /** The pool's free connections; null where connections multiplex. */
    private final LinkedBlockingQueue<Connection> free;
    private final List<Connection> pooled = new ArrayList<>();
    final Gauge gauge = new Gauge();
    /** A pool's: each call's wait for a free connection (ns), since the measured phase began. */
    final Histogram waits;

    Sharing(Workload workload, int connections) {
        this.workload = workload;
        this.connections = connections;
        this.free = workload.multiplexes() ? null : new LinkedBlockingQueue<>();
        this.waits = workload.multiplexes() ? null : new ConcurrentHistogram(Tally.LOWEST_NS, Tally.HIGHEST_NS, Tally.DIGITS);
        for (int i = 0; free != null && i < connections; i++) {
            pooled.add(workload.open(i));
            free.add(pooled.get(i));
        }
    }

    int connections() {
        return connections;
    }

    /** Client i's view: its share of a multiplexed connection, or a borrower from the pool. */
    Connection open(int client) {
        return free == null ? new Counted(workload.open(client)) : new Borrower();
    }

    /** The measured phase begins (no call is in flight): forget the warm-up's figures. */
    void reset() {
        gauge.reset();
        if (waits != null) {
            waits.reset();
        }
    }

    @Override
    public void close() {
        pooled.forEach(Connection::close);
    }

    /** A multiplexed connection's calls, counted in flight. */
    private final class Counted implements Connection {
        private final Connection shared;

        Counted(Connection shared) {
            this.shared = shared;
        }

        @Override
        public Object exchange(int slot) throws Exception {
            gauge.enter();
            try {
                return shared.exchange(slot);
            } finally {
                gauge.leave();
            }
        }

        @Override
        public boolean verify(int slot, Object reply) {
            return shared.verify(slot, reply);
        }

        @Override
        public void reconnect() {
            shared.reconnect();
        }

        @Override
        public void close() {
            shared.close();
        }
    }

    /** One client's calls over the pool: each borrows a free connection and gives it back. */
    private final class Borrower implements Connection {
        private long[] latencies = NO_MESSAGES;

        @Override
        public Object exchange(int slot) throws Exception {
            long asked = System.nanoTime();
            Connection connection = free.take();
            long waitedNs = System.nanoTime() - asked;
            waits.recordValue(Math.max(Tally.LOWEST_NS, Math.min(Tally.HIGHEST_NS, waitedNs)));
            gauge.enter();
            latencies = NO_MESSAGES;
            try {
                Object reply = connection.exchange(slot);
                latencies = connection.messageLatenciesNs();  // before another client borrows it
                return reply;
            } catch (Exception e) {
                if (Failures.needsReconnect(Failures.kind(e))) {
                    connection.reconnect();  // before another client borrows it
                }
                throw e;
            } finally {
                gauge.leave();
                free.add(connection);
            }
        }

        /** Replies are checked against the payloads alone: any of the pool's connections can. */
        @Override
        public boolean verify(int slot, Object reply) {
            return pooled.get(0).verify(slot, reply);
        }

        /** The failed connection was reconnected before it went back to the pool. */
        @Override
        public void reconnect() {
        }

        @Override
        public long[] messageLatenciesNs() {
            return latencies;
        }

        /** The pool's connections are closed with the pool. */
        @Override
        public void close() {
        }
    }

    /** Calls in flight at once: the most, and the mean sampled at each call's start (that call counted). */
    static final class Gauge {
        private final AtomicLong now = new AtomicLong();
        private final AtomicLong max = new AtomicLong();
        private final AtomicLong starts = new AtomicLong();
        private final AtomicLong total = new AtomicLong();

        void enter() {
            long inFlight = now.incrementAndGet();
            starts.incrementAndGet();
            total.addAndGet(inFlight);
            max.accumulateAndGet(inFlight, Math::max);
        }

        void leave() {
            now.decrementAndGet();
        }

        void reset() {
            max.set(0);
            starts.set(0);
            total.set(0);
        }

        long max() {
            return max.get();
        }

        double mean() {
            long n = starts.get();
            return n == 0 ? 0 : (double) total.get() / n;
        }
    }
}
