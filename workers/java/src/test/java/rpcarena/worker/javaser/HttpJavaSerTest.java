package rpcarena.worker.javaser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import rpcarena.pojo.Numbers;
import rpcarena.pojo.RandRequest;
import rpcarena.worker.http.HttpArenaServer;

/** What a peer cannot make the Java-serialization server do: allocate a claim, or read without end. */
class HttpJavaSerTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** An int[] header claiming 2^31-16 elements, and nothing after it. */
    static byte[] hugeIntArrayHeader() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new int[0]);
        }
        byte[] header = bytes.toByteArray();
        ByteBuffer.wrap(header).putInt(header.length - 4, Integer.MAX_VALUE - 15);  // its length field
        return header;
    }

    @Test
    void theFilterRefusesAnArrayLongerThanTheBody() throws IOException {
        byte[] header = hugeIntArrayHeader();
        assertTrue(header.length < 32, header.length + " bytes");
        assertThrows(InvalidClassException.class, () -> HttpJavaSer.JAVA_SERIALIZATION.decode(header, Numbers.class));
    }

    @Test
    void overTheWireABadBodyOrACountOverTheCapIs400AndTheServerGoesOn() throws Exception {
        HttpArenaServer server = new HttpArenaServer(new InetSocketAddress("127.0.0.1", 0), HttpJavaSer.PREFIX,
                HttpJavaSer.JAVA_SERIALIZATION);
        try {
            assertEquals(400, post(server, "Average", hugeIntArrayHeader()).statusCode());
            RandRequest over = new RandRequest();
            over.count = 1_000_001;
            HttpResponse<byte[]> refused = post(server, "GetRandNums", HttpJavaSer.JAVA_SERIALIZATION.encode(over));
            assertEquals(400, refused.statusCode());
            assertTrue(new String(refused.body()).contains("over the cap of 1000000"), new String(refused.body()));
            RandRequest small = new RandRequest();
            small.count = 3;
            assertEquals(200, post(server, "GetRandNums", HttpJavaSer.JAVA_SERIALIZATION.encode(small)).statusCode());
        } finally {
            server.close();
        }
    }

    @Test
    void aBodyOverTheLimitIs413() throws Exception {
        HttpArenaServer server = new HttpArenaServer(new InetSocketAddress("127.0.0.1", 0), HttpJavaSer.PREFIX,
                HttpJavaSer.JAVA_SERIALIZATION, 1024);
        try {
            assertEquals(413, post(server, "Average", new byte[1025]).statusCode());
            RandRequest small = new RandRequest();
            assertEquals(200, post(server, "GetRandNums", HttpJavaSer.JAVA_SERIALIZATION.encode(small)).statusCode());
        } finally {
            server.close();
        }
    }

    private static HttpResponse<byte[]> post(HttpArenaServer server, String method, byte[] body) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + server.port() + HttpJavaSer.PREFIX + method);
        HttpRequest request = HttpRequest.newBuilder(uri).header("Content-Type", "application/x-java-serialized-object")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }
}
