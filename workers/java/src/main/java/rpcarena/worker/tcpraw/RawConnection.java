package rpcarena.worker.tcpraw;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import rpcarena.worker.core.Connection;

/** One persistent TCP connection (TCP_NODELAY); connects on first use and after failures. */
final class RawConnection implements Connection {
    private final InetSocketAddress address;
    private final byte[][] payloads;
    private final int timeoutMs;
    private Socket socket;
    private DataInputStream in;

    RawConnection(InetSocketAddress address, byte[][] payloads, int timeoutMs) {
        this.address = address;
        this.payloads = payloads;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public Object exchange(int slot) throws IOException {
        if (socket == null) {
            connect();
        }
        socket.getOutputStream().write(Frames.frame(payloads[slot]));
        return Frames.read(in);
    }

    private void connect() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(timeoutMs);
            s.connect(address, timeoutMs);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
    }

    @Override
    public boolean verify(int slot, Object reply) {
        return Arrays.equals(payloads[slot], (byte[]) reply);
    }

    @Override
    public void reconnect() {
        close();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            socket = null;
        }
    }
}
