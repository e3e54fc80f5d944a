package rpcarena.worker.tcpraw;

import java.io.IOException;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The contract's deadline for blocking sockets (docs/worker-contract.md): a connection whose next
 * request has not arrived whole, and its reply been taken, within the timeout of its start or of
 * its previous reply is closed. A read timeout ({@code setSoTimeout}) restarts at every byte, so a
 * request trickled a byte every 5 s lived for ever, and Java has no write timeout at all. One daemon
 * thread looks at every watched connection a few times per timeout and closes the socket of one
 * past its deadline, which fails its read or write (tcp-raw-java, typed-json-java). A reply costs
 * one volatile store and a clock read, no allocation, so the floor stays the floor.
 */
public final class Deadlines {
    private final long timeoutNanos;
    private final Set<Watched> watched = ConcurrentHashMap.newKeySet();

    public Deadlines(int timeoutMs) {
        this.timeoutNanos = timeoutMs * 1_000_000L;
        // a look every second at most: a connection past its deadline goes within a second of it
        Thread reaper = new Thread(() -> reapEvery(Math.max(10, Math.min(1000, timeoutMs / 4))), "request-deadline");
        reaper.setDaemon(true);
        reaper.start();
    }

    public Watched watch(Socket socket) {
        Watched w = new Watched(socket);
        watched.add(w);
        return w;
    }

    private void reapEvery(int periodMs) {
        while (true) {
            try {
                Thread.sleep(periodMs);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Watched w : watched) {
                if (now - w.since > timeoutNanos) {
                    w.abort();
                }
            }
        }
    }

    /** One connection: marks each reply taken; closing it stops the watch. */
    public final class Watched implements AutoCloseable {
        private final Socket socket;
        private volatile long since = System.nanoTime();

        private Watched(Socket socket) {
            this.socket = socket;
        }

        /** A reply was written: the next request has the whole timeout from now. */
        public void answered() {
            since = System.nanoTime();
        }

        private void abort() {
            watched.remove(this);
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        @Override
        public void close() {
            watched.remove(this);
        }
    }
}
