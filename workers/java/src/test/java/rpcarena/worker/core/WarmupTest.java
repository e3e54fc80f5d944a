package rpcarena.worker.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The warm-up's end: never before warmup_s, at once after it without a most, and it stays over. */
class WarmupTest {
    @Test
    void notOverBeforeTheLeastWhateverTheJit() {
        assertFalse(new Warmup(60, 120.0).over());
        assertFalse(new Warmup(60, null).over());
    }

    @Test
    void withoutAMostItEndsAtTheLeast() throws InterruptedException {
        assertTrue(new Warmup(0, null).over());
        Warmup w = new Warmup(0.02, null);
        Thread.sleep(40);
        assertTrue(w.over());
        assertTrue(w.over());  // once over, over for every client
        assertTrue(w.seconds() >= 0.02);
    }

    @Test
    void theCompilerThreadsCpuIsReadOnLinux() {
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertTrue(Warmup.compilerThreadsCpuNs() >= 0);  // this JVM has compiled something by now
        }
    }

    @Test
    void aMostEqualToTheLeastEndsItThere() {
        Warmup w = new Warmup(0, 0.0);
        assertTrue(w.over());
        assertTrue(w.describe().startsWith("warm-up 0.0 s"), w.describe());
    }
}
