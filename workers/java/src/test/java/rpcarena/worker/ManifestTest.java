package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.SpecError;

/** worker.json, which the orchestrator reads, against Contenders.ALL, which this worker runs. */
class ManifestTest {
    static List<JsonNode> entries() throws IOException {
        List<JsonNode> out = new ArrayList<>();
        Json.MAPPER.readTree(Path.of("worker.json").toFile()).get("contenders").forEach(out::add);
        return out;
    }

    @Test
    void manifestAndRegistryNameTheSameContenders() throws IOException {
        List<String> manifest = entries().stream().map(e -> e.get("id").asText()).toList();
        List<String> registry = Contenders.ALL.stream().map(Contender::id).toList();
        assertEquals(manifest.size(), new HashSet<>(manifest).size(), "worker.json lists an id twice: " + manifest);
        assertEquals(new TreeSet<>(registry), new TreeSet<>(manifest),
                "Contenders.ALL vs worker.json's contenders: add the missing one to the other side");
    }

    /** The entries whose id is registered (the test above names the others). */
    static Stream<Arguments> registeredEntries() throws IOException {
        return entries().stream().filter(e -> Contenders.ALL.stream().anyMatch(c -> c.id().equals(e.get("id").asText())))
                .map(e -> Arguments.of(e.get("id").asText(), e));
    }

    /** The flags default as the orchestrator reads them (src/rpcarena/contenders/native.py): server true, client false. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("registeredEntries")
    void entryStatesWhatItsContenderDoes(String id, JsonNode entry) throws Exception {
        Contender contender = Contenders.byId(id);
        String where = "worker.json entry " + contender.id();
        assertEquals(contender.protocol(), entry.path("protocol").asText(), where + ": protocol differs from the contender's");
        assertEquals(entry.path("server").asBoolean(true), serves(contender), where + ": 'server' says otherwise than serve()");
        assertEquals(entry.path("client").asBoolean(false), drives(contender), where + ": 'client' says otherwise than workload()");
    }

    /** It really listens: a server on port 0 reports the port it got. */
    private static boolean serves(Contender contender) throws IOException {
        try (RunningServer server = contender.serve(TestSpecs.ANY_PORT)) {
            return server.port() > 0;
        }
    }

    /** It really takes a spec of its protocol and decodes its payloads (no call is made). */
    private static boolean drives(Contender contender) throws SpecError {
        return contender.workload(TestSpecs.parse(TestSpecs.specFor(contender.id(), 1))).slots() > 0;
    }
}
