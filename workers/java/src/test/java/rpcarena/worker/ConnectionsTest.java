package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.Result;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;

/**
 * The spec's connections: 8 load clients over 2 connections, counted where a real server
 * accepts them (a relay in front of it counts the sockets). Counts, never durations.
 */
class ConnectionsTest {
    private static final int CLIENTS = 8;
    private static final int CONNECTIONS = 2;
    private static final int CALLS = 200;
    /** Their calls carry ids (gRPC streams, typed-json frames): many in flight on a connection. */
    private static final Set<String> MULTIPLEXED = Set.of("grpc-java", "typed-json-java");

    @ParameterizedTest
    @ValueSource(strings = {"grpc-java", "typed-json-java", "rest-jackson", "http-javaser", "tcp-raw-java"})
    void clientsShareTheSpecsConnections(String id) throws Exception {
        Contender contender = Contenders.byId(id);
        try (RunningServer server = contender.serve(TestSpecs.ANY_PORT); Relay relay = new Relay(server.port())) {
            ObjectNode spec = TestSpecs.specFor(id, relay.port()).put("clients", CLIENTS).put("connections", CONNECTIONS);
            Result drive = DriveEndToEndTest.drive(spec);
            JsonNode result = Json.MAPPER.readTree(drive.toJson(contender.tool()).toString());  // as written
            ContractFields.of("drive_result").assertFollows(result);
            assertEquals(CALLS, result.get("calls").asLong(), result::toString);
            assertEquals(Map.of(), DriveEndToEndTest.nonZero(drive.errors()));
            assertEquals(CONNECTIONS, relay.accepted());
            assertEquals(CONNECTIONS, result.get("connections").asInt());
            long inFlight = result.get("inflight_max").asLong();
            if (MULTIPLEXED.contains(id)) {
                assertTrue(inFlight > CONNECTIONS && inFlight <= CLIENTS, () -> id + " in flight at most: " + inFlight);
                assertFalse(result.has("histogram_conn_wait"), "a multiplexed call waits for no connection");
            } else {
                assertTrue(inFlight >= 1 && inFlight <= CONNECTIONS, () -> id + " in flight at most: " + inFlight);
                assertEquals(CALLS, decode(result.get("histogram_conn_wait").asText()).getTotalCount());
            }
        }
    }

    @Test
    void withoutConnectionsEachClientHasItsOwnAndNoSharingFigures() throws Exception {
        try (RunningServer server = Contenders.byId("tcp-raw-java").serve(TestSpecs.ANY_PORT);
             Relay relay = new Relay(server.port())) {
            JsonNode result = DriveEndToEndTest.drive(TestSpecs.specFor("tcp-raw-java", relay.port()))
                    .toJson(Contenders.byId("tcp-raw-java").tool());
            assertEquals(2, relay.accepted());
            assertFalse(result.has("connections") || result.has("inflight_max"), result::toString);
        }
    }

    @Test
    void moreConnectionsThanClientsIsRefused() {
        ObjectNode spec = TestSpecs.specFor("grpc-java", 1).put("connections", 3);
        SpecError e = assertThrows(SpecError.class, () -> Spec.parse(spec));
        assertTrue(e.getMessage().contains("give 1 to clients (2)"), e.getMessage());
    }

    private static Histogram decode(String encoded) throws Exception {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 0);
    }

    /** A relay on 127.0.0.1:0 to a server's port that counts the connections it accepts. */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final AtomicInteger accepted = new AtomicInteger();

        Relay(int serverPort) throws IOException {
            daemon(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket inbound = listener.accept();
                        accepted.incrementAndGet();
                        Socket outbound = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                        inbound.setTcpNoDelay(true);
                        outbound.setTcpNoDelay(true);
                        daemon(() -> copy(inbound, outbound));
                        daemon(() -> copy(outbound, inbound));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return listener.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }

        private static void daemon(Runnable body) {
            Thread t = new Thread(body, "relay");
            t.setDaemon(true);
            t.start();
        }

        /** Copies until either side ends, then ends both. */
        private static void copy(Socket from, Socket to) {
            try (from; to; InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[1 << 16];
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // one side closed: the other is closed by the try
            }
        }
    }
}
