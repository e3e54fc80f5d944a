package rpcarena.worker.semantics;

/**
 * A request an operation will not run (a count over {@link Semantics#MAX_COUNT}): the caller's
 * error, which gRPC answers as INVALID_ARGUMENT and HTTP as 400, with this message.
 */
public final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Refused(String message) {
        super(message, null, false, false);  // a reply to send, not a bug to trace
    }
}
