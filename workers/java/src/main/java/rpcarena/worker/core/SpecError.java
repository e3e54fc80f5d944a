package rpcarena.worker.core;

/** A spec (or a serve command) this worker cannot run: exit code 2 with this one-line message. */
public final class SpecError extends Exception {
    public SpecError(String message) {
        super(message);
    }
}
