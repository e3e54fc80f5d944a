package rpcarena.worker.core;

/** A spec (or a serve command) this worker cannot run: exit code 2 with this one-line message. */
public final class SpecError extends Exception {
    private static final long serialVersionUID = 1L;  // Throwable is Serializable; never sent anywhere here

    public SpecError(String message) {
        super(message);
    }
}
