package rpcarena.worker.tcpraw;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import rpcarena.worker.core.Limits;
import rpcarena.worker.core.RunningServer;

/**
 * The floor: a thread per connection writes every frame back unchanged, and closes a connection
 * that sends nothing for the idle timeout (a frame begun and not finished included), or whose
 * echo it cannot write for that long (a peer that takes no replies: a blocking write has no
 * timeout of its own, so {@link Writes} closes the socket under it).
 */
final class EchoServer implements RunningServer {
    private static final int BACKLOG = 1024;

    private final ServerSocket listener;
    private final int idleTimeoutMs;
    private final Writes writes;

    EchoServer(InetSocketAddress address) throws IOException {
        this(address, Limits.idleTimeoutMs());
    }

    /** With another idle timeout (a short one in tests). */
    EchoServer(InetSocketAddress address, int idleTimeoutMs) throws IOException {
        this.idleTimeoutMs = idleTimeoutMs;
        this.writes = new Writes(idleTimeoutMs);
        listener = new ServerSocket();
        listener.bind(address, BACKLOG);
        Thread acceptor = new Thread(this::acceptAll, "tcp-raw-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @Override
    public int port() {
        return listener.getLocalPort();
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private void acceptAll() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                Thread echo = new Thread(() -> echo(socket, idleTimeoutMs, writes.watch(socket)), "tcp-raw-conn");
                echo.setDaemon(true);
                echo.start();
            } catch (IOException e) {
                // closed listener ends the loop; a failed accept is the client's problem
            }
        }
    }

    private static void echo(Socket socket, int idleTimeoutMs, Writes.Watched watched) {
        try (socket; watched) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(idleTimeoutMs);  // each read: SocketTimeoutException after that long
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream out = socket.getOutputStream();
            while (true) {
                byte[] frame = Frames.frame(Frames.read(in));
                watched.writing();
                out.write(frame);
                watched.written();
            }
        } catch (IOException e) {
            // the client left, went idle, took no reply, or sent a frame over the limit: close
        }
    }
}
