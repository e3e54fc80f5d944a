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
import rpcarena.worker.tcpraw.Connections;
import rpcarena.worker.tcpraw.Deadlines;

/**
 * typed-json's server: a thread per connection answers its call frames in order, each reply
 * carrying its call's id (so a client may pipeline many calls on one connection). A frame over
 * {@link Limits#MAX_REQUEST_BYTES} closes the connection before its body is read; so does a
 * connection whose next call has not arrived whole, and its reply been taken, within the idle
 * timeout ({@link Deadlines}).
 */
final class FrameServer implements RunningServer {
    private final ServerSocket listener;
    private final Connections connections;

    FrameServer(InetSocketAddress address) throws IOException {
        this.connections = new Connections(Limits.idleTimeoutMs());
        listener = new ServerSocket();
        listener.bind(address, Limits.listenBacklog());
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
                connections.serve(listener.accept(), "typed-json-conn", FrameServer::serve);
            } catch (IOException e) {
                // a closed listener ends the loop; a failed accept is the client's problem
            }
        }
    }

    private static void serve(Socket socket, Deadlines.Watched watched) {
        try (socket; watched) {
            socket.setTcpNoDelay(true);
            // the JDK's 8 KiB buffer: 64 KiB a connection made 1,000 idle ones cost 64 MB more
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream out = socket.getOutputStream();
            while (true) {
                Frames.Frame call = Frames.read(in, Limits.MAX_REQUEST_BYTES);
                Envelope.Reply reply = Envelope.answer(call.body());
                out.write(Frames.pack(call.callId(), reply.status(), reply.body()));
                watched.answered();
            }
        } catch (IOException e) {
            // the client left, went idle, took no reply, or sent a frame over the limit: close
        }
    }
}
