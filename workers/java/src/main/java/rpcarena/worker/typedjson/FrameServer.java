package rpcarena.worker.typedjson;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import rpcarena.worker.core.Limits;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.tcpraw.Writes;

/**
 * typed-json's server: a thread per connection answers its call frames in order, each reply
 * carrying its call's id (so a client may pipeline many calls on one connection). A frame over
 * {@link Limits#MAX_REQUEST_BYTES} closes the connection before its body is read; so does a
 * connection that sends nothing for the idle timeout, or takes no reply for that long.
 */
final class FrameServer implements RunningServer {
    private static final int BACKLOG = 1024;

    private final ServerSocket listener;
    private final int idleTimeoutMs;
    private final Writes writes;

    FrameServer(InetSocketAddress address) throws IOException {
        this.idleTimeoutMs = Limits.idleTimeoutMs();
        this.writes = new Writes(idleTimeoutMs);
        listener = new ServerSocket();
        listener.bind(address, BACKLOG);
        Thread acceptor = new Thread(this::acceptAll, "typed-json-accept");
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
                Thread conn = new Thread(() -> serve(socket, writes.watch(socket)), "typed-json-conn");
                conn.setDaemon(true);
                conn.start();
            } catch (IOException e) {
                // a closed listener ends the loop; a failed accept is the client's problem
            }
        }
    }

    private void serve(Socket socket, Writes.Watched watched) {
        try (socket; watched) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(idleTimeoutMs);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
            OutputStream out = socket.getOutputStream();
            while (true) {
                Frames.Frame call = Frames.read(in, Limits.MAX_REQUEST_BYTES);
                Envelope.Reply reply = Envelope.answer(call.body());
                watched.writing();
                out.write(Frames.pack(call.callId(), reply.status(), reply.body()));
                watched.written();
            }
        } catch (IOException e) {
            // the client left, went idle, took no reply, or sent a frame over the limit: close
        }
    }
}
