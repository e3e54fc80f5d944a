package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The validator itself: it accepts what the Python side wrote, and names each breach. */
class ContractFieldsTest {
    @Test
    void goldenDocumentsFollowTheirTables() throws Exception {
        ContractFields.of("drive_result").assertFollows(ContractFields.read("result.json"));
        ContractFields.of("ready").assertFollows(ContractFields.read("ready.json"));
        for (String spec : GoldenSpecTest.goldenSpecs().toList()) {
            ContractFields.of("drive_spec").assertFollows(ContractFields.read(spec));
        }
    }

    @Test
    void everyKindOfBreachIsNamed() {
        ObjectNode result = (ObjectNode) ContractFields.read("result.json");
        result.remove("calls");
        result.put("wall_s", "1.2").putNull("histogram").put("late_calls", 1.0).put("latency_ms", 3);
        assertEquals(List.of(
                "missing required key 'calls'",
                "key 'wall_s' must be number, not STRING",
                "key 'histogram' must not be null",
                "key 'late_calls' must be integer, not NUMBER",
                "key 'latency_ms' is not in the contract"), ContractFields.of("drive_result").problems(result));
    }

    @Test
    void nullIsAcceptedWhereTheTableAllowsIt() {
        ObjectNode result = (ObjectNode) ContractFields.read("result.json");
        result.putNull("histogram_uncorrected").putNull("end_mono_ns");
        assertEquals(List.of(), ContractFields.of("drive_result").problems(result));
    }
}
