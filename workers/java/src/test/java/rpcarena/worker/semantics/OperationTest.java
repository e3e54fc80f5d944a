package rpcarena.worker.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import rpcarena.pojo.PojoCatalog;

/** The table's lookup; what each row computes is pinned by the shared vectors (VectorsTest). */
class OperationTest {
    @Test
    void everyRpcOfTheSchemaHasItsRow() {
        PojoCatalog.UNARY.keySet().forEach(Operation::of);  // every unary rpc of proto/arena.proto
        assertEquals(Operation.INVERT, Operation.of("InvertStream"));
        assertEquals(Operation.ECHO, Operation.of("EchoLargeData8192"));
        assertEquals(Operation.VOID, Operation.of("Void"));
    }

    @Test
    void anRpcWithoutARowIsRefusedNamingTheFix() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Operation.of("Square"));
        assertTrue(e.getMessage().contains("add one"), e.getMessage());
    }
}
