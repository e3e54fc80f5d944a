package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.RunningServer;

/** {@code drive --many}: spec after spec in one process, each answered as {@code drive} answers one. */
class DriveManyTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int drive(String input, String... args) {
        return DriveCommand.run(args, new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true), new PrintStream(err, true));
    }

    private List<JsonNode> lines() throws Exception {
        List<JsonNode> found = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            found.add(Json.MAPPER.readTree(line));
        }
        return found;
    }

    @Test
    void eachSpecIsWarmedSyncedAndAnsweredThenTheNextIsRead() throws Exception {
        try (RunningServer server = Contenders.byId("grpc-java").serve(TestSpecs.ANY_PORT)) {
            String first = TestSpecs.invert("grpc-java", server.port()).put("sync", true).put("calls", 30).toString();
            String second = TestSpecs.invert("grpc-java", server.port()).put("sync", true).put("calls", 40)
                    .put("clients", 1).toString();
            String self = Long.toString(ProcessHandle.current().pid());
            assertEquals(0, drive(first + "\ngo\n" + second + "\ngo\n", "--many", "--jit-of", self), err.toString());
        }
        List<JsonNode> found = lines();
        assertEquals(4, found.size());  // warm, result, warm, result
        assertEquals("warm", found.get(0).get("event").asText());
        assertEquals(30, found.get(1).get("calls").asInt());
        assertEquals("warm", found.get(2).get("event").asText());
        assertEquals(40, found.get(3).get("calls").asInt());
        assertTrue(found.get(3).get("errors").findValues("connection").stream().allMatch(n -> n.asInt() == 0));
    }

    @Test
    void aBadSpecOrBadOptionsExit2WithOneLine() {
        assertEquals(2, drive("{\"contract\": 1,\n"));
        assertEquals(2, drive("", "--many", "--jit-of", "x"));
        assertEquals(2, drive("", "--once"));
        assertEquals(3, err.toString().lines().count());
        assertEquals(0, drive("", "--many"));  // nothing asked: nothing to do
    }
}
