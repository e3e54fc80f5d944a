package rpcarena.worker;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Workload;

/**
 * The golden drive specs of proto/contract/ (written by tools/gen_contract.py from the Python
 * contract) through this worker's own parser, Spec.parse: every value the file holds must come
 * out as the file holds it. Spec.parse does not look the contender up (DriveCommand does, through
 * Contenders.byId), so the golden specs parse unchanged although they name grpc-go and tcp-raw-go.
 */
class GoldenSpecTest {
    /** How Spec exposes each key it reads. Spec keeps no contract: parse refuses all but its own. */
    private static final Map<String, Function<Spec, Object>> READS = Map.ofEntries(
            entry("contract", s -> Spec.CONTRACT),
            entry("contender", Spec::contender), entry("target", Spec::target), entry("method", Spec::method),
            entry("requests", Spec::requests), entry("responses", Spec::responses),
            entry("payloads_b64", Spec::payloadsB64), entry("clients", Spec::clients),
            entry("warmup_s", Spec::warmupS), entry("calls", Spec::calls), entry("duration_s", Spec::durationS),
            entry("timeout_ms", Spec::timeoutMs), entry("sample_limit", Spec::sampleLimit),
            entry("rate_per_s", Spec::ratePerS), entry("arrival", Spec::arrival), entry("mode", Spec::mode),
            entry("sync", Spec::sync), entry("stages", s -> s.stages().stream()
                    .map(t -> Map.of("rate_per_s", t.ratePerS(), "duration_s", t.durationS())).toList()),
            entry("interval_s", Spec::intervalS), entry("connections", Spec::connections),
            entry("schedule_offset_ns", Spec::scheduleOffsetNs),
            entry("warmup_max_s", Spec::warmupMaxS), entry("schema_b64", Spec::schemaB64));

    /** Keys for Python drivers only (see src/rpcarena/contract.py): a native worker ignores them. */
    private static final Set<String> PYTHON_ONLY = Set.of("client", "external");

    /** The Java contender of the golden contender's protocol. */
    private static final Map<String, String> JAVA_CONTENDER = Map.of("grpc-go", "grpc-java", "tcp-raw-go", "tcp-raw-java");

    /** Every spec.*.json; JUnit fails the tests below if there is none. */
    static Stream<String> goldenSpecs() throws IOException {
        try (Stream<Path> files = Files.list(ContractFields.DIR)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("spec.") && n.endsWith(".json")).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenSpecs")
    void specParsesToTheValuesTheFileHolds(String file) throws SpecError {
        JsonNode golden = ContractFields.read(file);
        Spec spec = Spec.parse(golden);
        golden.fieldNames().forEachRemaining(key -> {
            if (!PYTHON_ONLY.contains(key)) {
                Function<Spec, Object> read = READS.get(key);
                assertNotNull(read, () -> file + ": Spec.parse ignores key '" + key + "': read it there and list it in READS");
                assertSameValue(golden.get(key), node(read.apply(spec)), file + " key '" + key + "'");
            }
        });
    }

    /** The table and Spec agree both ways, so a key added on either side fails here, named. */
    @Test
    void everyContractKeyIsReadByJavaOrPythonOnly() {
        Set<String> java = new TreeSet<>(READS.keySet());
        java.addAll(PYTHON_ONLY);
        assertEquals(new TreeSet<>(ContractFields.of("drive_spec").keys()), java,
                "fields.json drive_spec keys vs what Spec.parse reads: teach Spec (and READS) the new key, or drop the stale one");
    }

    /** Each golden shape (closed, open loop, stream, tcp-raw) is one the Java client can run. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenSpecs")
    void javaContenderOfTheSameProtocolAcceptsTheSpec(String file) throws SpecError {
        ObjectNode golden = (ObjectNode) ContractFields.read(file);
        String java = JAVA_CONTENDER.get(golden.get("contender").asText());
        assertNotNull(java, () -> file + " names contender " + golden.get("contender")
                + ": map it to the Java contender of its protocol in JAVA_CONTENDER");
        Spec spec = Spec.parse(golden.put("contender", java));
        Workload workload = Contenders.byId(java).workload(spec);  // decodes every payload; connects lazily
        int expected = spec.payloadsB64().isEmpty() ? spec.requests().size() : spec.payloadsB64().size();
        assertEquals(expected, workload.slots());
    }

    private static JsonNode node(Object value) {
        return value == null ? NullNode.getInstance() : Json.MAPPER.valueToTree(value);
    }

    /** Numbers by value (the file's 5000 is Spec's 5000.0), everything else exactly. */
    private static void assertSameValue(JsonNode want, JsonNode got, String what) {
        boolean same = want.isNumber() && got.isNumber()
                ? want.decimalValue().compareTo(got.decimalValue()) == 0 : want.equals(got);
        assertTrue(same, () -> what + ": the file has " + want + ", Spec.parse gave " + got);
    }
}
