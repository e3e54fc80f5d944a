package rpcarena.worker.userschema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import rpcarena.arena.HelloReply;
import rpcarena.arena.HelloRequest;
import rpcarena.arena.Word;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.semantics.Refused;

/**
 * served.json and the answers of a user's method. arena.proto's methods stand for the user's: the
 * test registry (src/test/resources) names their generated classes, as a variant's names the user's.
 */
class UserHandlerTest {
    @TempDir
    Path dir;

    private Path served(String doc) throws IOException {
        return Files.writeString(dir.resolve("served.json"), doc);
    }

    private UserHandler load(String doc) throws IOException, SpecError {
        return UserHandler.load(served(doc));
    }

    private static HelloRequest hello(String name) {
        return HelloRequest.newBuilder().setName(name).build();
    }

    @Test
    void theServedFileNamesTheMethodWithItsGeneratedTypes() throws Exception {
        UserHandler h = load("""
                {"method": "arena.Arena/SayHello", "descriptor_set_b64": "", "reply": "echo",
                 "pairs": [[{"name": "ada"}, {"message": "ada"}]], "server_work_us": 0, "server_wait_us": 0}""");
        assertEquals("arena.Arena/SayHello", h.method().key());
        assertInstanceOf(HelloRequest.class, h.method().request());
        assertInstanceOf(HelloReply.class, h.method().reply());
        assertEquals("arena.Arena/SayHello: no server work or wait", h.calibration());
    }

    @Test
    void echoReadsTheRequestAsTheReplyByFieldNumber() throws Exception {
        UserHandler h = load("{\"method\": \"arena.Arena/SayHello\", \"reply\": \"echo\", \"pairs\": []}");
        assertEquals(HelloReply.newBuilder().setMessage("ada").build(), h.answer(hello("ada")));
        UserHandler same = load("{\"method\": \"arena.Arena/Invert\", \"reply\": \"echo\", \"pairs\": []}");
        Word word = Word.newBuilder().setValue("abc").build();
        assertSame(word, same.answer(word), "a method of one type answers the request itself");
    }

    @Test
    void fileAnswersEachRequestWithItsPairAndRefusesAStranger() throws Exception {
        UserHandler h = load("""
                {"method": "arena.Arena/SayHello", "reply": "file",
                 "pairs": [[{"name": "ada"}, {"message": "one"}], [{"name": "grace"}, {"message": "two"}]]}""");
        for (var pair : Map.of("ada", "one", "grace", "two").entrySet()) {
            assertEquals(pair.getValue(), ((HelloReply) h.answer(hello(pair.getKey()))).getMessage(), pair.getKey());
        }
        assertThrows(Refused.class, () -> h.answer(hello("edsger")));
    }

    @Test
    void sizeAnswersTheOneReplyWhateverTheRequest() throws Exception {
        UserHandler h = load("""
                {"method": "arena.Arena/SayHello", "reply": "size",
                 "pairs": [[{"name": "ada"}, {"message": "rrrr"}], [{"name": "grace"}, {"message": "rrrr"}]]}""");
        for (String name : new String[] {"ada", "someone else"}) {
            assertEquals("rrrr", ((HelloReply) h.answer(hello(name))).getMessage(), name);
        }
    }

    @Test
    void serverWorkIsCalibratedAndSaidAndSpentAsThreadCpu() throws Exception {
        UserHandler h = load("""
                {"method": "arena.Arena/SayHello", "reply": "echo", "pairs": [], "server_work_us": 500, "server_wait_us": 10}""");
        assertTrue(h.calibration().startsWith("arena.Arena/SayHello: server work 500us of thread CPU, in chunks of "),
                h.calibration());
        assertTrue(h.calibration().endsWith("wait 10us"), h.calibration());
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadCpuTime();
        h.answer(hello("ada"));
        assertTrue(threads.getCurrentThreadCpuTime() - before >= 500_000, "the spin ends after 500us of this thread's CPU");
    }

    @Test
    void aBidirectionalStreamAndAOneSidedOneAreServedWithTheirTypes() throws SpecError {
        assertTrue(UserMethod.lookup("arena.Arena/InvertStream").streaming());
        UserMethod oneSided = UserMethod.lookup("arena.Arena/OneSided");
        assertEquals(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING, oneSided.type());
        assertFalse(oneSided.streaming());
    }

    @Test
    void badServedFilesSayWhatIsWrong() throws IOException {
        Map<String, String> cases = Map.of(
                "{\"method\": \"orders.Orders/Place\", \"reply\": \"echo\"}", "not built with the schema",
                "{\"method\": \"arena.Arena/Nope\", \"reply\": \"echo\"}", "no method arena.Arena/Nope",
                "{\"method\": \"arena.Arena/Missing\", \"reply\": \"echo\"}", "no generated message here",
                "{\"method\": \"arena.Arena/SayHello\", \"reply\": \"loud\"}", "use echo, file or size",
                "{\"method\": \"arena.Arena/SayHello\", \"reply\": \"size\", \"pairs\": []}", "needs a [request, reply] pair",
                "{\"method\": \"arena.Arena/SayHello\", \"reply\": \"file\", \"pairs\": [[{\"nom\": 1}, {}]]}", "pair 1 request",
                "{\"method\": \"arena.Arena/SayHello\", \"reply\": \"echo\", \"server_work_us\": -1}", "negative server work",
                "{\"method\": \"SayHello\", \"reply\": \"echo\"}", "give package.Service/Method",
                "not json", "give the file rpcarena wrote");
        for (var c : cases.entrySet()) {
            SpecError e = assertThrows(SpecError.class, () -> load(c.getKey()), c.getKey());
            assertTrue(e.getMessage().contains(c.getValue()), c.getKey() + ": " + e.getMessage());
        }
        assertThrows(SpecError.class, () -> UserHandler.load(dir.resolve("missing.json")));
    }
}
