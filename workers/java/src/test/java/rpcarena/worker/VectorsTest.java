package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import rpcarena.worker.core.Connection;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.JsonValues;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Workload;
import rpcarena.worker.grpc.GrpcReplies;

/**
 * Every shared vector gives exactly its response through every server of this worker: each
 * request goes over the wire through the contender's own client, and the decoded reply, as
 * canonical JSON, must equal the vector's response (no tolerance).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VectorsTest {
    private static final List<String> TYPED = List.of("rest-jackson", "http-javaser", "grpc-java", "typed-json-java");
    private final List<RunningServer> servers = new ArrayList<>();
    private final java.util.Map<String, Integer> ports = new java.util.HashMap<>();

    @BeforeAll
    void startServers() throws Exception {
        for (String id : TYPED) {
            RunningServer server = Contenders.byId(id).serve(TestSpecs.ANY_PORT);
            servers.add(server);
            ports.put(id, server.port());
        }
    }

    @AfterAll
    void stopServers() {
        servers.forEach(RunningServer::close);
    }

    Stream<Arguments> cases() {
        List<JsonNode> vectors = TestSpecs.vectors();
        return TYPED.stream().flatMap(id -> vectors.stream().map(v -> Arguments.of(id, v.get("method").asText(), v)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void vectorThroughServer(String contenderId, String method, JsonNode vector) throws Exception {
        Contender contender = Contenders.byId(contenderId);
        ObjectNode spec = TestSpecs.invert(contenderId, ports.get(contenderId)).put("method", method);
        spec.putArray("requests").add(vector.get("request"));
        spec.putArray("responses").add(vector.get("response"));
        Workload workload = contender.workload(TestSpecs.parse(spec));
        try (Connection connection = workload.open(0)) {
            Object reply = connection.exchange(0);
            JsonNode actual = contenderId.equals("grpc-java")
                    ? GrpcReplies.json(method, reply) : Json.MAPPER.valueToTree(reply);
            assertTrue(JsonValues.equal(vector.get("response"), actual, 0.0),
                    () -> method + ": expected " + abbreviate(vector.get("response")) + " got " + abbreviate(actual));
            assertTrue(connection.verify(0, reply));
        }
    }

    /** The server's own JSON, read raw: the wire itself holds the canonical response. */
    @Test
    void jsonWireIsCanonical() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (JsonNode v : TestSpecs.vectors()) {
            HttpResponse<String> r = post(client, "/arena/" + v.get("method").asText(), v.get("request").toString());
            assertEquals(200, r.statusCode());
            assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
            assertTrue(JsonValues.equal(v.get("response"), Json.MAPPER.readTree(r.body()), 0.0), v.get("method").asText());
        }
    }

    @Test
    void jsonUnknownMethodIs404AndBadBodyIs400() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        assertEquals(404, post(client, "/arena/NoSuchMethod", "{}").statusCode());
        assertEquals(400, post(client, "/arena/EchoInt32", "{\"value\": ").statusCode());
        assertEquals(200, post(client, "/arena/EchoInt64", "{\"value\": \"-9223372036854775808\"}").statusCode());
    }

    private HttpResponse<String> post(HttpClient client, String path, String body) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + ports.get("rest-jackson") + path);
        HttpRequest request = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String abbreviate(JsonNode n) {
        String s = n.toString();
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
