package rpcarena.worker.tcpraw;

import java.io.IOException;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A write timeout for blocking sockets, which Java has not: one daemon thread looks at every
 * watched connection a few times per timeout and closes the socket of one whose write has been
 * stuck longer than the timeout, which fails the write (tcp-raw-java, typed-json-java). A write
 * costs two volatile stores and a clock read, no allocation, so the floor stays the floor.
 */
public final class Writes {
    private final long timeoutNanos;
    private final Set<Watched> watched = ConcurrentHashMap.newKeySet();

    public Writes(int timeoutMs) {
        this.timeoutNanos = timeoutMs * 1_000_000L;
        Thread reaper = new Thread(() -> reapEvery(Math.max(10, timeoutMs / 4)), "tcp-raw-write-timeout");
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
                long since = w.writingSince;
                if (since != 0 && now - since > timeoutNanos) {
                    w.abort();
                }
            }
        }
    }

    /** One connection: marks its writes; closing it stops the watch. */
    public final class Watched implements AutoCloseable {
        private final Socket socket;
        private volatile long writingSince;

        private Watched(Socket socket) {
            this.socket = socket;
        }

        public void writing() {
            long now = System.nanoTime();
            writingSince = now == 0 ? 1 : now;
        }

        public void written() {
            writingSince = 0;
        }

        private void abort() {
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
