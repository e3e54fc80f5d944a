package rpcarena.worker;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.RunningServer;

/**
 * What this worker really writes, read back from its own output as the orchestrator reads it,
 * against proto/contract/fields.json: the drive result line and the serve ready line.
 */
class ContractOutputTest {
    /** Every registered contender, so a new one is checked without an edit here. */
    static Stream<String> contenders() {
        return Contenders.ALL.stream().map(Contender::id);
    }

    @ParameterizedTest
    @MethodSource("contenders")
    void closedLoopResultFollowsTheTable(String id) throws Exception {
        try (RunningServer server = Contenders.byId(id).serve(TestSpecs.ANY_PORT)) {
            JsonNode result = resultLine(TestSpecs.specFor(id, server.port()));
            ContractFields.of("drive_result").assertFollows(result);
            assertEquals(200, result.get("calls").asLong());
        }
    }

    /** Open loop fills the nullable histogram_uncorrected: a string then, never another kind. */
    @Test
    void openLoopResultFollowsTheTable() throws Exception {
        try (RunningServer server = Contenders.byId("grpc-java").serve(TestSpecs.ANY_PORT)) {
            JsonNode result = resultLine(TestSpecs.specFor("grpc-java", server.port()).put("rate_per_s", 4000));
            ContractFields.of("drive_result").assertFollows(result);
            assertTrue(result.get("histogram_uncorrected").isTextual());
        }
    }

    /** `serve` on port 0, stopped by the end of its stdin, as the orchestrator may stop it. */
    @Test
    void serveReadyLineFollowsTheTable() throws Exception {
        PipedOutputStream stdin = new PipedOutputStream();
        PipedInputStream serverStdin = new PipedInputStream(stdin);
        PipedInputStream stdout = new PipedInputStream();
        PrintStream serverStdout = new PrintStream(new PipedOutputStream(stdout), true, UTF_8);
        String[] args = {"--contender", "tcp-raw-java", "--host", "127.0.0.1", "--port", "0"};
        FutureTask<Integer> serve = new FutureTask<>(() -> {
            try (serverStdout) {  // closed on any exit, so the read below never waits for nothing
                return ServeCommand.run(args, serverStdin, serverStdout, System.err);
            }
        });
        new Thread(serve, "serve-under-test").start();
        String line = new BufferedReader(new InputStreamReader(stdout, UTF_8)).readLine();
        stdin.close();
        assertEquals(0, serve.get());
        assertNotNull(line, "serve wrote no ready line");
        JsonNode ready = Json.MAPPER.readTree(line);
        ContractFields.of("ready").assertFollows(ready);
        assertEquals("ready", ready.get("event").asText());
        assertTrue(ready.get("port").asInt() > 0);
        assertEquals(ProcessHandle.current().pid(), ready.get("pid").asLong());
    }

    /** DriveCommand as `drive` runs it: the spec on stdin, the result the one line on stdout. */
    private static JsonNode resultLine(ObjectNode spec) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = DriveCommand.run(new ByteArrayInputStream(spec.toString().getBytes(UTF_8)),
                new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
        assertEquals(0, code, () -> err.toString(UTF_8));
        List<String> lines = out.toString(UTF_8).lines().toList();
        assertEquals(1, lines.size(), "drive without sync writes exactly the result line");
        return Json.MAPPER.readTree(lines.get(0));
    }
}
