package rpcarena.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;

/** Specs and fixtures shared by the tests: the shared vectors and small drive specs. */
final class TestSpecs {
    static final Path VECTORS = Path.of("../../proto/vectors/arena.json");
    static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);

    private TestSpecs() {}

    static List<JsonNode> vectors() {
        try {
            List<JsonNode> out = new ArrayList<>();
            Json.MAPPER.readTree(VECTORS.toFile()).get("vectors").forEach(out::add);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A small closed-loop spec: the Invert words of cs6650, as the contract's example. */
    static ObjectNode invert(String contender, int port) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("contract", 1).put("contender", contender).put("target", "127.0.0.1:" + port).put("method", "Invert");
        s.putArray("requests").add(word("A")).add(word("dagger")).add(word("of"));
        s.putArray("responses").add(word("A")).add(word("reggad")).add(word("fo"));
        s.put("clients", 2).put("warmup_s", 0.1).put("calls", 200).put("timeout_ms", 5000).put("sample_limit", 50);
        return s;
    }

    /** {@link #invert}, or for tcp-raw three frames (a Word, an empty one, 300 zero bytes). */
    static ObjectNode specFor(String id, int port) {
        ObjectNode spec = invert(id, port);
        if (id.equals("tcp-raw-java")) {
            spec.remove("requests");
            spec.remove("responses");
            spec.putArray("payloads_b64").add(Base64.getEncoder().encodeToString(new byte[] {10, 1, 65}))
                    .add("").add(Base64.getEncoder().encodeToString(new byte[300]));
        }
        return spec;
    }

    static ObjectNode word(String value) {
        return Json.MAPPER.createObjectNode().put("value", value);
    }

    static Spec parse(ObjectNode spec) {
        try {
            return Spec.parse(spec);
        } catch (SpecError e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A port nobody listens on: bound, then closed. */
    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
