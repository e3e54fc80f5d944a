package rpcarena.worker.http;

import java.io.IOException;

/** How an HTTP contender writes a message into a body and reads it back. */
public interface BodyCodec {
    String contentType();

    byte[] encode(Object message) throws IOException;

    Object decode(byte[] body, Class<?> type) throws IOException;
}
