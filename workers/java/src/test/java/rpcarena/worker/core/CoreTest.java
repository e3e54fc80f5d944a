package rpcarena.worker.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import rpcarena.worker.semantics.Semantics;

/** The pure parts: splitting, pacing, sampling, comparing, semantics. No clock, no network. */
class CoreTest {
    @Test
    void quotaSplitsCallsEvenlyFirstClientsTakeTheRest() {
        Plan plan = new Plan.Quota(3, 8L, Long.MAX_VALUE);
        int[] made = new int[3];
        for (int c = 0; c < 3; c++) {
            while (plan.next(c) != Plan.DONE) {
                made[c]++;
            }
        }
        assertArrayEquals(new int[] {3, 3, 2}, made);
    }

    @Test
    void scheduleHandsOutConstantArrivalsUntilTheCallsAreStarted() {
        Plan plan = new Plan.Schedule(Pacer.of("constant", 1000), 5_000, 3L, null);
        assertEquals(5_000, plan.next(0));
        assertEquals(5_000 + 1_000_000, plan.next(1));
        assertEquals(5_000 + 2_000_000, plan.next(0));
        assertEquals(Plan.DONE, plan.next(1));
    }

    @Test
    void scheduleForADurationStopsAtTheSpan() {
        Plan plan = new Plan.Schedule(Pacer.of("constant", 10), 0, null, 250_000_000L);
        int n = 0;
        while (plan.next(0) != Plan.DONE) {
            n++;
        }
        assertEquals(3, n);  // at 0, 100 and 200 ms
    }

    @Test
    void stagesKeepEachRateFromTheirOwnStart() {
        List<Spec.Stage> stages = List.of(new Spec.Stage(10, 1.0), new Spec.Stage(40, 0.5));
        Plan plan = new Plan.Schedule(Pacer.staged("constant", stages), 0, null, 1_500_000_000L, stages);
        int[] made = new int[2];
        for (long due = plan.next(0); due != Plan.DONE; due = plan.next(0)) {
            made[plan.stage(due)]++;
        }
        assertArrayEquals(new int[] {10, 20}, made);
    }

    @Test
    void alarmedHandsEachCallOutInOrderNotBeforeItIsDueThenDoneToEveryClient() {
        long start = System.nanoTime() + 1_000_000;
        Plan plan = new Alarmed(new Plan.Schedule(Pacer.of("constant", 2000), start, 5L, null), 2);
        for (int k = 0; k < 5; k++) {
            long due = plan.next(k % 2);
            assertEquals(start + k * 500_000L, due);
            assertTrue(System.nanoTime() >= due);
        }
        assertEquals(Plan.DONE, plan.next(0));
        assertEquals(Plan.DONE, plan.next(1));
    }

    @Test
    void poissonGapsAverageTheRate() {
        Pacer p = Pacer.of("poisson", 1000);
        long last = 0;
        for (int i = 0; i < 10_000; i++) {
            long at = p.nextOffsetNs();
            assertTrue(at >= last);
            last = at;
        }
        assertEquals(10.0, last / 1e9, 0.5);  // 10,000 arrivals at 1000/s
    }

    @Test
    void reservoirKeepsAtMostItsLimitWithIndexes() {
        Reservoir r = new Reservoir(10);
        for (int i = 0; i < 1000; i++) {
            r.offer(i * 7L);
        }
        List<long[]> s = r.samples();
        assertEquals(10, s.size());
        for (long[] pair : s) {
            assertEquals(pair[0] * 7, pair[1]);
        }
    }

    @Test
    void jsonValuesTreatMissingAsDefaultAndToleratesDoubles() throws Exception {
        assertTrue(eq("{\"value\": 0}", "{}", 0));
        assertTrue(eq("{\"values\": []}", "{}", 0));
        assertTrue(eq("{\"value\": \"-9223372036854775808\"}", "{\"value\": -9223372036854775808}", 0));
        assertTrue(eq("{\"value\": 1.0}", "{\"value\": 1.0000000000001}", 1e-9));
        assertFalse(eq("{\"value\": 1.0}", "{\"value\": 1.0000001}", 1e-9));
        assertFalse(eq("{\"value\": 1}", "{\"value\": 2}", 1e-9));
        assertFalse(eq("{\"values\": [1, 2]}", "{\"values\": [2, 1]}", 0));
        assertFalse(eq("{\"value\": \"a\"}", "{}", 0));
    }

    private static boolean eq(String a, String b, double tol) throws Exception {
        JsonNode x = Json.MAPPER.readTree(a);
        JsonNode y = Json.MAPPER.readTree(b);
        return JsonValues.equal(x, y, tol) && JsonValues.equal(y, x, tol);
    }

    @Test
    void semanticsMatchTheReference() {
        assertEquals("deepS", Semantics.invert("Speed"));
        assertEquals("d\uD83D\uDE00c", Semantics.invert("c\uD83D\uDE00d"));
        assertEquals(715827882.0, Semantics.average(new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE}));
        assertArrayEquals(new int[] {1012239698, 806866057}, Semantics.randNums(2, (int) 4294967295L));
        assertEquals(13.0, Semantics.distance(0, 0, 0, 3, 4, 12));
    }
}
