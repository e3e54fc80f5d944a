package rpcarena.worker.core;

/** Paces the measured phase: whether a client makes another call and when it was due. */
public interface Plan {
    /** Returned by {@link #next} when the client is done. */
    long DONE = Long.MIN_VALUE;
    /** Returned by {@link #next} in closed loop: the call is due now. */
    long NOW = Long.MAX_VALUE;

    long next(int client);

    /** The stage a call due at {@code dueNs} belongs to (0 without stages). */
    default int stage(long dueNs) {
        return 0;
    }

    /** Closed loop: each client's share of the calls, or a deadline. */
    final class Quota implements Plan {
        private final long[] left;
        private final long deadlineNs;

        /** calls split evenly; the first calls % clients clients do one more. */
        public Quota(int clients, Long calls, long deadlineNs) {
            this.deadlineNs = deadlineNs;
            this.left = calls == null ? null : new long[clients];
            for (int i = 0; left != null && i < clients; i++) {
                left[i] = calls / clients + (i < calls % clients ? 1 : 0);
            }
        }

        @Override
        public long next(int client) {
            if (left == null) {
                return System.nanoTime() < deadlineNs ? NOW : DONE;
            }
            return left[client]-- > 0 ? NOW : DONE;  // each client touches only its own slot
        }
    }

    /** Open loop: arrivals over all clients together, each taken by whichever client is free. */
    final class Schedule implements Plan {
        private final long startNs;
        private final Pacer pacer;
        private final Long spanNs;
        private final long[] stageEndsNs;
        private long left;

        public Schedule(Pacer pacer, long startNs, Long calls, Long spanNs) {
            this(pacer, startNs, calls, spanNs, java.util.List.of());
        }

        public Schedule(Pacer pacer, long startNs, Long calls, Long spanNs, java.util.List<Spec.Stage> stages) {
            this.pacer = pacer;
            this.startNs = startNs;
            this.left = calls == null ? -1 : calls;
            this.spanNs = spanNs;
            this.stageEndsNs = new long[stages.size()];
            long end = 0;
            for (int i = 0; i < stages.size(); i++) {
                end += stages.get(i).durationNs();
                stageEndsNs[i] = end;
            }
        }

        @Override
        public int stage(long dueNs) {
            int k = 0;
            while (k < stageEndsNs.length - 1 && dueNs - startNs >= stageEndsNs[k]) {
                k++;
            }
            return k;
        }

        @Override
        public synchronized long next(int client) {
            if (left == 0) {
                return DONE;
            }
            long offset = pacer.nextOffsetNs();
            if (left < 0 && offset >= spanNs) {
                return DONE;
            }
            if (left > 0) {
                left--;
            }
            return startNs + offset;
        }
    }
}
