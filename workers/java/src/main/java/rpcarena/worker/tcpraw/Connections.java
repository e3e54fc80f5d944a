package rpcarena.worker.tcpraw;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.Semaphore;
import java.util.function.BiConsumer;

/**
 * A blocking server's connections (tcp-raw-java, typed-json-java): a thread each, under the
 * request deadline ({@link Deadlines}), and at most {@link #MAX} at once: one more is closed as it
 * is accepted. A connection costs its thread, about 115 KiB resident however idle (the JVM touches
 * its stack's guard and shadow pages; measured: 1,000 idle connections, +115 to +130 MB), so the
 * cap bounds what a peer opening connections can make the server hold: about 120 MB.
 */
public final class Connections {
    /** Eight times the most clients a suite's part runs (infobip2016: 128), and no more. */
    public static final int MAX = 1024;

    private final Semaphore slots = new Semaphore(MAX);
    private final Deadlines deadlines;

    public Connections(int timeoutMs) {
        this.deadlines = new Deadlines(timeoutMs);
    }

    /** Serves `socket` on a thread of its own, or closes it when MAX are served already. */
    public void serve(Socket socket, String name, BiConsumer<Socket, Deadlines.Watched> serve) {
        if (!slots.tryAcquire()) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            return;
        }
        Thread thread = new Thread(() -> {
            try {
                serve.accept(socket, deadlines.watch(socket));
            } finally {
                slots.release();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }
}
