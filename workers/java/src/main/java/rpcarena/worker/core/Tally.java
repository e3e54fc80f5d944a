package rpcarena.worker.core;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/** What one client measured: latencies (ns) in HdrHistograms, and errors by kind. */
public final class Tally {
    static final long LOWEST_NS = 1;
    static final long HIGHEST_NS = 60_000_000_000L;
    static final int DIGITS = 3;

    final Histogram latency = newHistogram();
    final Histogram uncorrected = newHistogram();
    /** Open loop: each call's schedule lag, from its intended start to its send (the driver's own lateness). */
    final Histogram lag = newHistogram();
    final Map<String, Long> errors = new TreeMap<>();
    /** One-way streams: each reply message's latency (null until the first stream). */
    Histogram messages;
    long calls;
    long lateCalls;
    /** The measured phase interval by interval (the spec's interval_s; 1 s for a total). */
    final Series series;
    /** A total's: every client's closed intervals, added by start in the result. */
    final java.util.List<Series.Interval> intervals = new java.util.ArrayList<>();

    Tally() {
        this(1.0);
    }

    Tally(double intervalS) {
        series = new Series(intervalS);
    }

    static Histogram newHistogram() {
        return new Histogram(LOWEST_NS, HIGHEST_NS, DIGITS);
    }

    void ok(long latencyNs, long uncorrectedNs, long lagNs) {
        calls++;
        latency.recordValue(clamp(latencyNs));
        uncorrected.recordValue(clamp(uncorrectedNs));
        lag.recordValue(Math.max(0, Math.min(HIGHEST_NS, lagNs)));
        series.ok(clamp(latencyNs));
    }

    void messages(long[] latenciesNs) {
        if (latenciesNs.length == 0) {
            return;
        }
        if (messages == null) {
            messages = newHistogram();
        }
        for (long ns : latenciesNs) {
            messages.recordValue(clamp(ns));
        }
    }

    void error(String kind) {
        errors.merge(kind, 1L, Long::sum);
        series.error(kind);
    }

    void add(Tally other) {
        calls += other.calls;
        lateCalls += other.lateCalls;
        latency.add(other.latency);
        uncorrected.add(other.uncorrected);
        lag.add(other.lag);
        if (other.messages != null) {
            if (messages == null) {
                messages = newHistogram();
            }
            messages.add(other.messages);
        }
        other.errors.forEach((k, v) -> errors.merge(k, v, Long::sum));
        intervals.addAll(other.series.closed);
    }

    private static long clamp(long ns) {
        return Math.max(LOWEST_NS, Math.min(HIGHEST_NS, ns));
    }
}
