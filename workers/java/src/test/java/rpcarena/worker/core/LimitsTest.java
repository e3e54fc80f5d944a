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

    /** The listen backlog is the system's somaxconn, read whole (a /proc file reports size 0). */
    @Test
    void theListenBacklogIsTheSystems() throws java.io.IOException {
        java.nio.file.Path somaxconn = java.nio.file.Path.of("/proc/sys/net/core/somaxconn");
        int system = Integer.parseInt(new String(java.nio.file.Files.newInputStream(somaxconn).readAllBytes()).trim());
        assertEquals(Math.max(128, system), Limits.listenBacklog());
    }
}
