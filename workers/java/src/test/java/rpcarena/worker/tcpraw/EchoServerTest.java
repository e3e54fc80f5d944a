package rpcarena.worker.tcpraw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The echo server's bounds: memory follows the bytes that arrive, and idle connections close. */
class EchoServerTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** A header may claim the limit: the payload grows with the bytes that really come. */
    @Test
    void aLyingHeaderDoesNotAllocateItsClaim() {
        byte[] stream = ByteBuffer.allocate(104).putInt(Frames.MAX_BYTES).array();  // 100 bytes follow
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(stream));
        long before = THREADS.getCurrentThreadAllocatedBytes();
        assertThrows(EOFException.class, () -> Frames.read(in));
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1 << 20, allocated + " bytes allocated for a 104-byte stream");
    }

    /** A connection that stops sending, between frames or inside one, is closed (here after 100 ms). */
    @Test
    void anIdleConnectionIsClosed() throws IOException {
        EchoServer server = new EchoServer(new InetSocketAddress("127.0.0.1", 0), 100);
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);  // bounds the test, far beyond the idle timeout
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] sent = Frames.frame(new byte[] {1, 2, 3});
            out.write(sent);
            assertArrayEquals(sent, in.readNBytes(sent.length));
            out.write(new byte[] {0, 0, 0, 10});  // a frame begun, then nothing
            assertEquals(-1, in.read(), "the server did not close an idle connection");
        } finally {
            server.close();
        }
    }

    /**
     * A frame trickled a byte every 50 ms, each byte well within the 300 ms timeout, is closed once
     * it has not arrived whole within it: a read timeout restarts at every byte and kept it for ever.
     */
    @Test
    void aTrickledFrameIsClosed() throws IOException, InterruptedException {
        EchoServer server = new EchoServer(new InetSocketAddress("127.0.0.1", 0), 300);
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            byte[] trickled = Frames.frame(new byte[100]);
            try {
                for (byte b : trickled) {
                    out.write(b);
                    Thread.sleep(50);
                }
            } catch (IOException e) {
                return;  // closed under the trickle: what the deadline does
            }
            assertEquals(-1, socket.getInputStream().read(), "a frame trickled over 5 s was echoed");
        } finally {
            server.close();
        }
    }

    /** Connections past {@link Connections#MAX} are closed as they come; those within are served. */
    @Test
    void aConnectionOverTheCapIsClosed() throws IOException {
        EchoServer server = new EchoServer(new InetSocketAddress("127.0.0.1", 0), 30_000);
        java.util.List<Socket> held = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < Connections.MAX; i++) {
                held.add(new Socket("127.0.0.1", server.port()));
            }
            byte[] sent = Frames.frame(new byte[] {7});
            held.get(0).getOutputStream().write(sent);
            assertArrayEquals(sent, held.get(0).getInputStream().readNBytes(sent.length));
            try (Socket over = new Socket("127.0.0.1", server.port())) {
                over.setSoTimeout(10_000);
                assertEquals(-1, over.getInputStream().read(), "a connection over the cap was kept");
            }
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
            server.close();
        }
    }

    /**
     * A peer that sends echo requests and never reads the replies: the server's write blocks, and
     * the write timeout closes the socket under it (here after 200 ms), so our sends fail.
     */
    @Test
    void aPeerThatTakesNoReplyIsClosed() throws IOException {
        EchoServer server = new EchoServer(new InetSocketAddress("127.0.0.1", 0), 200);
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
            OutputStream out = socket.getOutputStream();
            byte[] frame = Frames.frame(new byte[1 << 20]);
            assertThrows(IOException.class, () -> {
                for (int i = 0; i < 10_000; i++) {  // 10 GB at most: bounded, and never reached
                    out.write(frame);
                }
            }, "the server kept a peer that took no reply");
        } finally {
            server.close();
        }
    }
}
