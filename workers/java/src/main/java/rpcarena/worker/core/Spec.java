package rpcarena.worker.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The drive spec of the contract, decoded and checked once. */
public record Spec(
        String contender,
        String target,
        String method,
        List<JsonNode> requests,
        List<JsonNode> responses,
        List<String> payloadsB64,
        int clients,
        double warmupS,
        Long calls,
        Double durationS,
        double timeoutMs,
        int sampleLimit,
        Double ratePerS,
        String arrival,
        String mode,
        boolean sync,
        List<Stage> stages,
        double intervalS,
        Integer connections,
        long scheduleOffsetNs,
        Double warmupMaxS,
        String schemaB64) {

    public static final int CONTRACT = 1;

    /** One step of a staged open loop (k6's ramping arrival rate), paced one after the other. */
    public record Stage(double ratePerS, double durationS) {
        long durationNs() {
            return (long) (durationS * 1e9);
        }
    }

    public static Spec parse(JsonNode n) throws SpecError {
        if (n == null || !n.isObject()) {
            throw new SpecError("the spec on stdin is not a JSON object");
        }
        if (n.path("contract").asInt(-1) != CONTRACT) {
            throw new SpecError("spec contract " + n.path("contract") + ": this worker speaks contract " + CONTRACT);
        }
        Spec s = new Spec(text(n, "contender", ""), text(n, "target", ""), text(n, "method", ""),
                list(n.path("requests")), list(n.path("responses")), strings(n.path("payloads_b64")),
                n.path("clients").asInt(1), n.path("warmup_s").asDouble(0),
                n.hasNonNull("calls") ? n.get("calls").asLong() : null,
                n.hasNonNull("duration_s") ? n.get("duration_s").asDouble() : null,
                n.path("timeout_ms").asDouble(5000), n.path("sample_limit").asInt(10000),
                n.hasNonNull("rate_per_s") ? n.get("rate_per_s").asDouble() : null,
                text(n, "arrival", "constant"), text(n, "mode", "unary"), n.path("sync").asBoolean(false),
                stages(n.path("stages")),
                n.path("interval_s").asDouble(1.0),
                n.hasNonNull("connections") ? n.get("connections").asInt() : null,
                n.path("schedule_offset_ns").asLong(0),
                n.hasNonNull("warmup_max_s") ? n.get("warmup_max_s").asDouble() : null,
                n.hasNonNull("schema_b64") ? n.get("schema_b64").asText() : null);
        s.check();
        return s;
    }

    private void check() throws SpecError {
        if (!(intervalS > 0)) {
            throw new SpecError("spec interval_s must be positive");
        }
        if (scheduleOffsetNs < 0) {
            throw new SpecError("spec schedule_offset_ns must not be negative");
        }
        if (clients < 1) {
            throw new SpecError("spec clients must be at least 1");
        }
        if (connections != null && (connections < 1 || connections > clients)) {
            throw new SpecError("spec connections " + connections + ": give 1 to clients (" + clients + ")");
        }
        if (calls == null && durationS == null) {
            throw new SpecError("spec needs calls or duration_s");
        }
        if (warmupMaxS != null && !(warmupMaxS >= warmupS)) {
            throw new SpecError("spec warmup_max_s " + warmupMaxS + " must be at least warmup_s (" + warmupS + ")");
        }
        if ((calls != null && calls < 0) || (durationS != null && durationS < 0) || warmupS < 0) {
            throw new SpecError("spec calls, duration_s and warmup_s must not be negative");
        }
        if (timeoutMs <= 0 || sampleLimit < 0) {
            throw new SpecError("spec timeout_ms must be positive and sample_limit not negative");
        }
        if (ratePerS != null && ratePerS <= 0) {
            throw new SpecError("spec rate_per_s must be positive");
        }
        if (!arrival.equals("constant") && !arrival.equals("poisson")) {
            throw new SpecError("spec arrival '" + arrival + "': use constant or poisson");
        }
        if (!List.of("unary", "stream", "client_stream", "server_stream").contains(mode)) {
            throw new SpecError("spec mode '" + mode + "': use unary, stream, client_stream or server_stream");
        }
        if (!stages.isEmpty() && ratePerS == null) {
            throw new SpecError("spec stages need rate_per_s (the first stage's)");
        }
        for (Stage stage : stages) {
            if (!(stage.ratePerS() > 0) || !(stage.durationS() > 0)) {
                throw new SpecError("spec stages: each needs a positive rate_per_s and duration_s");
            }
        }
    }

    public Duration timeout() {
        return Duration.ofNanos((long) (timeoutMs * 1e6));
    }

    /**
     * Whether the method is the user's ("pkg.Service/Method" of `rpcarena run --proto`): this
     * build's generated code has its messages (a variant built with the schema), so the set itself
     * is not read here; the requests and responses are its messages in proto JSON.
     */
    public boolean user() {
        return schemaB64 != null && !schemaB64.isEmpty();
    }

    /** Any stream mode: bidirectional, or a user's one-way stream (client_stream, server_stream). */
    public boolean streaming() {
        return !mode.equals("unary");
    }

    /** The request/response pairs of a typed-payload spec, checked for shape. */
    public void requirePairs() throws SpecError {
        if (requests.isEmpty() || requests.size() != responses.size()) {
            throw new SpecError("spec needs as many responses as requests, at least one");
        }
    }

    private static String text(JsonNode n, String field, String otherwise) {
        return n.hasNonNull(field) ? n.get(field).asText() : otherwise;
    }

    private static List<JsonNode> list(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    private static List<Stage> stages(JsonNode array) {
        List<Stage> out = new ArrayList<>();
        array.forEach(e -> out.add(new Stage(e.path("rate_per_s").asDouble(0), e.path("duration_s").asDouble(0))));
        return out;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(e -> out.add(e.asText()));
        return out;
    }
}
