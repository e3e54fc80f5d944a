package rpcarena.worker.core;

/** A started server. */
public interface RunningServer extends AutoCloseable {
    int port();

    @Override
    void close();
}
