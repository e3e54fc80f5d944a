package rpcarena.worker.core;

import java.util.SplittableRandom;

/** Open-loop arrivals: the offset (ns from the start) of each successive call. */
public interface Pacer {
    long nextOffsetNs();

    static Pacer of(String arrival, double ratePerS) {
        double meanNs = 1e9 / ratePerS;
        return arrival.equals("poisson") ? new Poisson(meanNs, 42) : new Constant(meanNs);
    }

    /** Evenly spaced calls. */
    final class Constant implements Pacer {
        private final double intervalNs;
        private long n;

        public Constant(double intervalNs) {
            this.intervalNs = intervalNs;
        }

        @Override
        public long nextOffsetNs() {
            return (long) (intervalNs * n++);
        }
    }

    /** Exponential gaps, seeded so that runs are repeatable. */
    final class Poisson implements Pacer {
        private final double meanNs;
        private final SplittableRandom random;
        private double at;

        public Poisson(double meanNs, long seed) {
            this.meanNs = meanNs;
            this.random = new SplittableRandom(seed);
        }

        @Override
        public long nextOffsetNs() {
            long now = (long) at;
            at += -Math.log(1.0 - random.nextDouble()) * meanNs;
            return now;
        }
    }
}
