package rpcarena.worker.core;

import java.io.IOException;
import java.io.ObjectStreamException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.TimeoutException;

/** Names the contract's error kind of a failed call. A failure is data: counted, never thrown on. */
public final class Failures {
    public static final String WRONG_ANSWER = "wrong_answer";
    public static final String TIMEOUT = "timeout";
    public static final String CONNECTION = "connection";
    public static final String OTHER = "other";

    private Failures() {}

    public static String kind(Throwable e) {
        if (e instanceof CallFailure f) {
            return f.kind();
        }
        if (e instanceof HttpTimeoutException || e instanceof SocketTimeoutException
                || e instanceof TimeoutException) {
            return TIMEOUT;
        }
        if (e instanceof ObjectStreamException) {
            return OTHER;  // a reply that does not decode, not a broken connection
        }
        if (e instanceof IOException) {
            return CONNECTION;  // refused, reset, closed, EOF
        }
        return OTHER;
    }

    /** Whether the connection may be left in an unknown state, so the client should reconnect. */
    public static boolean needsReconnect(String kind) {
        return kind.equals(CONNECTION) || kind.equals(TIMEOUT) || kind.equals(OTHER);
    }
}
