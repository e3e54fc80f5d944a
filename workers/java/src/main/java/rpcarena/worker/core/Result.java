package rpcarena.worker.core;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/** The measured record of one drive, written as the contract's result document. */
public record Result(Tally tally, double wallS, CpuTimes cpu, List<long[]> samples, boolean openLoop,
                     List<Tally> stages, Shared shared) {

    /**
     * The spec's connections set: the connections opened, the calls in flight at once over the
     * measured phase (the mean sampled at each call's start, that call counted) and, where calls
     * borrow pooled connections, each call's wait for one (null where connections multiplex).
     */
    public record Shared(int connections, long inflightMax, double inflightMean, Histogram connWait) {}

    public long calls() {
        return tally.calls;
    }

    public Map<String, Long> errors() {
        Map<String, Long> errors = new TreeMap<>(Map.of(Failures.TIMEOUT, 0L, Failures.WRONG_ANSWER, 0L));
        errors.putAll(tally.errors);
        return errors;
    }

    public Histogram histogram() {
        return tally.latency;
    }

    /** Open loop: latency from the actual send rather than the intended start. */
    public Histogram uncorrectedHistogram() {
        return tally.uncorrected;
    }

    public ObjectNode toJson(Tool tool) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("contract", Spec.CONTRACT);
        r.put("calls", tally.calls);
        ObjectNode errors = r.putObject("errors");
        errors().forEach(errors::put);
        r.put("wall_s", wallS);
        r.put("cpu_user_s", cpu.userS());
        r.put("cpu_sys_s", cpu.sysS());
        r.put("histogram", encode(tally.latency));
        ArrayNode s = r.putArray("samples");
        samples.forEach(p -> s.addArray().add(p[0]).add(p[1]));
        r.put("histogram_uncorrected", openLoop ? encode(tally.uncorrected) : null);
        if (openLoop) {
            r.put("histogram_schedule_lag", encode(tally.lag));
        }
        r.put("late_calls", tally.lateCalls);
        if (tally.messages != null) {
            r.put("messages", tally.messages.getTotalCount());
            r.put("histogram_messages", encode(tally.messages));
        }
        if (!stages.isEmpty()) {
            ArrayNode staged = r.putArray("stages");
            stages.forEach(t -> staged.addObject().put("calls", t.calls).put("histogram", encode(t.latency))
                    .put("histogram_uncorrected", encode(t.uncorrected)).put("histogram_schedule_lag", encode(t.lag)));
        }
        if (shared != null) {
            r.put("connections", shared.connections());
            r.put("inflight_max", shared.inflightMax());
            r.put("inflight_mean", shared.inflightMean());
            if (shared.connWait() != null) {
                r.put("histogram_conn_wait", encode(shared.connWait()));
            }
        }
        r.putPOJO("tool", Map.of("name", tool.name(), "version", tool.version(), "runtime", tool.runtime()));
        List<Series.Interval> intervals = Series.merged(tally.intervals);
        if (!intervals.isEmpty()) {
            ArrayNode out = r.putArray("intervals");
            for (Series.Interval in : intervals) {
                ObjectNode o = out.addObject();
                o.put("start_s", tally.series.startS(in.index()));
                o.put("calls", in.calls());
                ObjectNode e = o.putObject("errors");
                in.errors().forEach(e::put);
                o.put("histogram", in.histogram());
            }
        }
        return r;
    }

    /** The histogram of its standard encoding (one this worker encoded). */
    static Histogram decode(String encoded) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 0);
        } catch (java.util.zip.DataFormatException e) {
            throw new IllegalStateException("an interval histogram this worker encoded", e);
        }
    }

    /** The standard V2 compressed encoding, base64: what every HdrHistogram library decodes. */
    public static String encode(Histogram h) {
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
    }
}
