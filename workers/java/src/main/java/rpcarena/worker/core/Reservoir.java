package rpcarena.worker.core;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Algorithm R over the measured calls of all clients: at most {@code limit} [index, ns] pairs. */
public final class Reservoir {
    private final int limit;
    private final long[][] kept;
    private final SplittableRandom random = new SplittableRandom(0x5eed);
    private long seen;

    public Reservoir(int limit) {
        this.limit = limit;
        this.kept = new long[limit][];
    }

    public synchronized void offer(long latencyNs) {
        long index = seen++;
        if (index < limit) {
            kept[(int) index] = new long[] {index, latencyNs};
            return;
        }
        long j = random.nextLong(index + 1);
        if (j < limit) {
            kept[(int) j] = new long[] {index, latencyNs};
        }
    }

    public synchronized List<long[]> samples() {
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < Math.min(seen, limit); i++) {
            out.add(kept[i]);
        }
        out.sort((a, b) -> Long.compare(a[0], b[0]));
        return out;
    }
}
