package rpcarena.worker.typedjson;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One multiplexed connection, shared by every load client of a driver (as the Python client's
 * Cluster shares one per server process): calls are written whole under a lock, and a reader
 * thread hands each reply to the call of its id, in whatever order they come.
 */
final class Link implements AutoCloseable {
    /** The most a client reads in one reply: a reply may be longer than a request. */
    private static final int MAX_REPLY = 64 << 20;

    private final Socket socket;
    private final OutputStream out;
    private final Map<Integer, CompletableFuture<Frames.Frame>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private volatile boolean alive = true;

    Link(InetSocketAddress address, int timeoutMs) throws IOException {
        socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(address, timeoutMs);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        out = socket.getOutputStream();
        DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        Thread reader = new Thread(() -> readAll(in), "typed-json-reader");
        reader.setDaemon(true);
        reader.start();
    }

    boolean alive() {
        return alive;
    }

    /** The reply frame of one call; TimeoutException after {@code timeoutMs}, IOException when the link died. */
    Frames.Frame call(byte[] body, long timeoutMs) throws IOException, TimeoutException, InterruptedException {
        int id = ids.incrementAndGet();
        CompletableFuture<Frames.Frame> reply = new CompletableFuture<>();
        pending.put(id, reply);
        try {
            if (!alive) {  // after put: fail() marks dead before it fails what is pending
                throw new SocketException("connection to the server is closed");
            }
            synchronized (out) {
                out.write(Frames.pack(id, 0, body));
            }
            return reply.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            fail(e);
            throw e;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } finally {
            pending.remove(id);
        }
    }

    private void readAll(DataInputStream in) {
        try {
            while (true) {
                Frames.Frame frame = Frames.read(in, MAX_REPLY);
                CompletableFuture<Frames.Frame> reply = pending.remove(frame.callId());
                if (reply != null) {  // null: a call that already timed out
                    reply.complete(frame);
                }
            }
        } catch (IOException e) {
            fail(e);
        }
    }

    /** Dead: every call in flight fails with the reason. */
    private void fail(IOException reason) {
        alive = false;
        IOException why = reason.getMessage() == null ? new SocketException("connection closed by peer") : reason;
        pending.values().forEach(reply -> reply.completeExceptionally(why));
        close();
    }

    @Override
    public void close() {
        alive = false;
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
