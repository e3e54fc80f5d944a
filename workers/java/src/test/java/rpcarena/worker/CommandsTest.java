package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import rpcarena.worker.core.Json;

/** The CLI's exit codes and its single result line. */
class CommandsTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int drive(String spec) {
        return DriveCommand.run(new ByteArrayInputStream(spec.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true), new PrintStream(err, true));
    }

    @Test
    void unknownContenderBadJsonAndUnknownMethodExit2() throws Exception {
        assertEquals(2, drive(TestSpecs.invert("no-such", 1).toString()));
        assertEquals(2, drive("{\"contract\": 1,"));
        assertEquals(2, drive(TestSpecs.invert("grpc-java", 1).put("method", "Nope").toString()));
        assertEquals(2, drive(TestSpecs.invert("rest-jackson", 1).put("mode", "stream").toString()));
        assertEquals(2, drive(TestSpecs.invert("rest-jackson", 1).put("contract", 2).toString()));
        assertTrue(out.toString().isEmpty());
        assertEquals(5, err.toString().lines().count());  // one line each
    }

    @Test
    void syncSaysWarmThenWaitsForALineThenWritesTheResult() throws Exception {
        String spec = TestSpecs.invert("tcp-raw-java", TestSpecs.closedPort()).put("sync", true).put("calls", 4)
                .put("warmup_s", 0).put("payloads_b64", "") .toString();
        spec = spec.replace("\"payloads_b64\":\"\"", "\"payloads_b64\":[\"AA==\"]");
        assertEquals(0, drive(spec + "\ngo\n"));
        String[] lines = out.toString().split("\n");
        JsonNode warm = Json.MAPPER.readTree(lines[0]);
        assertEquals("warm", warm.get("event").asText());
        assertTrue(warm.get("warmup_s").isNumber());  // how long it took (a JIT's may outlast warmup_s)
        assertEquals(4, Json.MAPPER.readTree(lines[1]).get("errors").get("connection").asInt());
    }

    @Test
    void serveRejectsUnknownContender() {
        assertEquals(2, ServeCommand.run(new String[] {"--contender", "nope"}, InputStream.nullInputStream(),
                new PrintStream(out), new PrintStream(err)));
    }

    @Test
    void calibrateSpendsAtLeastTheWorkOnEveryCallAndRefusesNoWork() throws Exception {
        assertEquals(0, CalibrateCommand.run(new String[] {"--server-work-us", "100", "--calls", "20"},
                new PrintStream(out, true), new PrintStream(err, true)));
        JsonNode found = Json.MAPPER.readTree(out.toString());
        assertEquals(20, found.get("calls").asInt());
        assertTrue(found.get("thread_cpu_ns").asLong() >= 20 * 100_000L, found.toString());
        assertTrue(found.get("calibration").asText().startsWith("server work 100us of thread CPU"));
        assertEquals(2, CalibrateCommand.run(new String[] {"--calls", "20"}, new PrintStream(out), new PrintStream(err)));
        assertEquals(2, CalibrateCommand.run(new String[] {"--server-work-us", "x"}, new PrintStream(out), new PrintStream(err)));
        assertEquals(2, err.toString().lines().count());
    }
}
