package rpcarena.worker.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The contract's cap: 1,000,000 values at most; a request over it refused naming the cap. */
class SemanticsTest {
    @Test
    void randNumsIsCappedAtOneMillion() {
        assertEquals(1_000_000, Semantics.MAX_COUNT);
        assertEquals(1_000_000, Semantics.randNums(1_000_000, 7).length);
        Refused refused = assertThrows(Refused.class, () -> Semantics.randNums(1_000_001, 7));
        assertTrue(refused.getMessage().contains("over the cap of 1000000"), refused.getMessage());
        assertEquals(0, Semantics.randNums(-1, 7).length);
    }
}
