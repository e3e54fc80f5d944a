package rpcarena.worker.core;

/** A failed call whose error kind its connection already knows (status_500, timeout, ...). */
public final class CallFailure extends Exception {
    private static final long serialVersionUID = 1L;  // Throwable is Serializable; never sent anywhere here

    private final String kind;

    public CallFailure(String kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public String kind() {
        return kind;
    }
}
