package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Base64;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Driver;
import rpcarena.worker.core.Result;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;

/** Drive each contender against its own server on port 0; assert counts, never durations. */
class DriveEndToEndTest {
    static Result drive(ObjectNode spec) throws Exception {
        Spec s = TestSpecs.parse(spec);
        return new Driver(s, Contenders.byId(s.contender()).workload(s), warmS -> { }).run();
    }

    static Map<String, Long> nonZero(Map<String, Long> errors) {
        Map<String, Long> out = new java.util.TreeMap<>(errors);
        out.values().removeIf(v -> v == 0);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"rest-jackson", "http-javaser", "grpc-java", "tcp-raw-java"})
    void closedLoopCountsEveryCall(String id) throws Exception {
        Contender contender = Contenders.byId(id);
        try (RunningServer server = contender.serve(TestSpecs.ANY_PORT)) {
            Result r = drive(TestSpecs.specFor(id, server.port()));
            assertEquals(200, r.calls());
            assertEquals(Map.of(), nonZero(r.errors()));
            assertEquals(200, r.histogram().getTotalCount());
            assertEquals(50, r.samples().size());
            assertTrue(r.wallS() > 0);
            ObjectNode json = r.toJson(contender.tool());
            Histogram decoded = Histogram.decodeFromCompressedByteBuffer(
                    java.nio.ByteBuffer.wrap(Base64.getDecoder().decode(json.get("histogram").asText())), 0);
            assertEquals(200, decoded.getTotalCount());
            assertTrue(json.get("histogram_uncorrected").isNull());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"constant", "poisson"})
    void openLoopKeepsBothHistograms(String arrival) throws Exception {
        try (RunningServer server = Contenders.byId("grpc-java").serve(TestSpecs.ANY_PORT)) {
            ObjectNode spec = TestSpecs.specFor("grpc-java", server.port()).put("rate_per_s", 4000).put("arrival", arrival);
            Result r = drive(spec);
            assertEquals(200, r.calls());
            assertEquals(200, r.histogram().getTotalCount());
            assertEquals(200, r.uncorrectedHistogram().getTotalCount());
            assertNotNull(r.toJson(Contenders.byId("grpc-java").tool()).get("histogram_uncorrected").textValue());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void streamModeIsPingPongOnOneStream(int clients) throws Exception {
        try (RunningServer server = Contenders.byId("grpc-java").serve(TestSpecs.ANY_PORT)) {
            ObjectNode spec = TestSpecs.specFor("grpc-java", server.port()).put("method", "InvertStream").put("mode", "stream")
                    .put("clients", clients).put("calls", 101);
            Result r = drive(spec);
            assertEquals(101, r.calls());
            assertEquals(Map.of(), nonZero(r.errors()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rest-jackson", "http-javaser", "grpc-java"})
    void wrongAnswersAreCountedNotTimed(String id) throws Exception {
        try (RunningServer server = Contenders.byId(id).serve(TestSpecs.ANY_PORT)) {
            ObjectNode spec = TestSpecs.specFor(id, server.port());
            spec.putArray("responses").add(TestSpecs.word("A")).add(TestSpecs.word("dagger")).add(TestSpecs.word("fo"));
            Result r = drive(spec);
            // slots 0 and 2 are right, slot 1 ("dagger" unreversed) is wrong
            long wrong = r.errors().get("wrong_answer");
            assertEquals(200, r.calls() + wrong);
            assertEquals(67, wrong);  // client 0 hits slot 1 on 33 calls, client 1 on 34
            assertEquals(r.calls(), r.histogram().getTotalCount());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rest-jackson", "http-javaser", "grpc-java", "tcp-raw-java"})
    void downServerGivesConnectionErrors(String id) throws Exception {
        ObjectNode spec = TestSpecs.specFor(id, TestSpecs.closedPort()).put("calls", 20).put("warmup_s", 0);
        Result r = drive(spec);
        assertEquals(0, r.calls());
        assertEquals(Map.of("connection", 20L), nonZero(r.errors()));
        assertEquals(0, r.histogram().getTotalCount());
    }
}
