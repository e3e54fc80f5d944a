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
 * whose next frame has not arrived whole, and its echo been taken, within the idle timeout of its
 * start or of the previous echo ({@link Deadlines} closes the socket under a read or a write: idle,
 * a frame begun and not finished or trickled a byte at a time, a peer that takes no replies).
 */
final class EchoServer implements RunningServer {
    private final ServerSocket listener;
    private final Connections connections;

    EchoServer(InetSocketAddress address) throws IOException {
        this(address, Limits.idleTimeoutMs());
    }

    /** With another idle timeout (a short one in tests). */
    EchoServer(InetSocketAddress address, int idleTimeoutMs) throws IOException {
        this.connections = new Connections(idleTimeoutMs);
        listener = new ServerSocket();
        listener.bind(address, Limits.listenBacklog());
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
                connections.serve(listener.accept(), "tcp-raw-conn", EchoServer::echo);
            } catch (IOException e) {
                // closed listener ends the loop; a failed accept is the client's problem
            }
        }
    }

    private static void echo(Socket socket, Deadlines.Watched watched) {
        try (socket; watched) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream out = socket.getOutputStream();
            while (true) {
                byte[] frame = Frames.frame(Frames.read(in));
                out.write(frame);
                watched.answered();
            }
        } catch (IOException e) {
            // the client left, went idle, took no reply, or sent a frame over the limit: close
        }
    }
}
