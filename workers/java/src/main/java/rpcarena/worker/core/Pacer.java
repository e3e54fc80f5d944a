package rpcarena.worker.core;

import java.util.List;
import java.util.SplittableRandom;

/** Open-loop arrivals: the offset (ns from the start) of each successive call. */
public interface Pacer {
    long nextOffsetNs();

    static Pacer of(String arrival, double ratePerS) {
        double meanNs = 1e9 / ratePerS;
        return arrival.equals("poisson") ? new Poisson(meanNs, 42) : new Constant(meanNs);
    }

    /** Each stage in turn at its own rate, from its own start; past the last, the stages' end. */
    static Pacer staged(String arrival, List<Spec.Stage> stages) {
        return new Staged(arrival, stages);
    }

    final class Staged implements Pacer {
        private final String arrival;
        private final List<Spec.Stage> stages;
        private int k;
        private long beginNs;
        private Pacer current;

        Staged(String arrival, List<Spec.Stage> stages) {
            this.arrival = arrival;
            this.stages = stages;
        }

        @Override
        public long nextOffsetNs() {
            while (k < stages.size()) {
                Spec.Stage stage = stages.get(k);
                if (current == null) {
                    current = of(arrival, stage.ratePerS());
                }
                long offset = current.nextOffsetNs();
                if (offset < stage.durationNs()) {
                    return beginNs + offset;
                }
                beginNs += stage.durationNs();
                k++;
                current = null;
            }
            return beginNs;
        }
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
