package rpcarena.worker.http;

import java.io.IOException;

/** What an HTTP load client sends and checks; encoding the request and decoding the reply are timed with the call. */
public interface HttpPayloads {
    int slots();

    String contentType();

    /** Request {@code slot}'s body. */
    byte[] request(int slot) throws IOException;

    Object reply(byte[] body) throws IOException;

    /** The untimed check of {@code reply} against slot's expected response. */
    boolean matches(int slot, Object reply);
}
