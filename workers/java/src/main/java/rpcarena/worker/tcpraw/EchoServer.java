package rpcarena.worker.tcpraw;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import rpcarena.worker.core.RunningServer;

/** The floor: a thread per connection writes every frame back unchanged. */
final class EchoServer implements RunningServer {
    private static final int BACKLOG = 1024;

    private final ServerSocket listener;

    EchoServer(InetSocketAddress address) throws IOException {
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
                Thread echo = new Thread(() -> echo(socket), "tcp-raw-conn");
                echo.setDaemon(true);
                echo.start();
            } catch (IOException e) {
                // closed listener ends the loop; a failed accept is the client's problem
            }
        }
    }

    private static void echo(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream out = socket.getOutputStream();
            while (true) {
                out.write(Frames.frame(Frames.read(in)));
            }
        } catch (IOException e) {
            // the client left, or sent a frame over 64 MiB: close
        }
    }
}
