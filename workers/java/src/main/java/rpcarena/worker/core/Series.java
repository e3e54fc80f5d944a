package rpcarena.worker.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One client's measured phase interval by interval: the histogram and errors of the calls begun (open
 * loop: due) in each, closed as the client's clock passes the interval's end and kept encoded, so that a
 * soak of hours stays small. The clients' intervals are added by start at the end ({@link #merged}).
 */
public final class Series {
    /** One closed interval: its index (start / interval), verified calls, errors by kind, histogram. */
    record Interval(long index, long calls, Map<String, Long> errors, String histogram) {}

    private final long everyNs;
    private long startNs;
    private long index;
    private Histogram open = Tally.newHistogram();
    private Map<String, Long> errors = new TreeMap<>();
    final List<Interval> closed = new ArrayList<>();

    Series(double intervalS) {
        this.everyNs = Math.max(1, (long) (intervalS * 1e9));
    }

    void begin(long startNs) {
        this.startNs = startNs;
    }

    /** Opens the interval holding nowNs (a call's start, or its due time), closing the one before. */
    void at(long nowNs) {
        long k = Math.max(0, (nowNs - startNs) / everyNs);
        if (k != index) {
            close();
            index = k;
        }
    }

    void ok(long latencyNs) {
        open.recordValue(latencyNs);
    }

    void error(String kind) {
        errors.merge(kind, 1L, Long::sum);
    }

    void close() {
        if (open.getTotalCount() == 0 && errors.isEmpty()) {
            return;
        }
        closed.add(new Interval(index, open.getTotalCount(), errors, Result.encode(open)));
        open = Tally.newHistogram();
        errors = new TreeMap<>();
    }

    double startS(long k) {
        return Math.round(k * (everyNs / 1e9) * 1e6) / 1e6;
    }

    /** The intervals of every client, those of the same start added, in order of start. */
    static List<Interval> merged(List<Interval> all) {
        Map<Long, Histogram> hists = new TreeMap<>();
        Map<Long, Map<String, Long>> errs = new TreeMap<>();
        for (Interval in : all) {
            hists.computeIfAbsent(in.index(), k -> Tally.newHistogram()).add(Result.decode(in.histogram()));
            Map<String, Long> e = errs.computeIfAbsent(in.index(), k -> new TreeMap<>());
            in.errors().forEach((kind, n) -> e.merge(kind, n, Long::sum));
        }
        List<Interval> out = new ArrayList<>();
        hists.forEach((k, h) -> out.add(new Interval(k, h.getTotalCount(), errs.get(k), Result.encode(h))));
        return out;
    }
}
