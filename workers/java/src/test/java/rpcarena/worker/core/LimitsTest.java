package rpcarena.worker.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The idle timeout is the contract's 60 s unless RPCARENA_IDLE_TIMEOUT_S lowers it. */
class LimitsTest {
    @Test
    void theIdleTimeoutIsTheContractsUnlessLowered() {
        assertEquals(60_000, Limits.idleTimeoutMs(null));
        assertEquals(500, Limits.idleTimeoutMs("0.5"));
        assertEquals(2_000, Limits.idleTimeoutMs("2"));
        for (String bad : new String[] {"", "0", "-1", "NaN", "x", "600", "Infinity"}) {
            assertEquals(60_000, Limits.idleTimeoutMs(bad), bad);
        }
    }
}
