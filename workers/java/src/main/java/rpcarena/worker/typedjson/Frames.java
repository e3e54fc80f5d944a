package rpcarena.worker.typedjson;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The call-id frames of rpcarena.codec.frames: a 10-byte little-endian header (body length u32,
 * call id u32, kind u16), then the body. On a request the kind is 0 (the body names the method);
 * on a reply it is the status. A length is a claim, not memory: a body over {@link #CHUNK} is read
 * as it arrives, and one over the reader's limit closes the connection before anything is read.
 */
final class Frames {
    static final int HEADER = 10;
    static final int OK = 0;
    static final int BAD_REQUEST = 1;
    static final int UNKNOWN_METHOD = 2;
    static final int INTERNAL = 3;
    /** Bodies up to this are read into an array of their announced size at once. */
    static final int CHUNK = 64 << 10;

    private Frames() {}

    /** One frame as it arrived: its call id, kind (or status) and body. */
    record Frame(int callId, int kind, byte[] body) {}

    static byte[] pack(int callId, int kind, byte[] body) {
        return ByteBuffer.allocate(HEADER + body.length).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(body.length).putInt(callId).putShort((short) kind).put(body).array();
    }

    /** The next frame; ProtocolException (the caller closes) for a body over {@code maxBytes}. */
    static Frame read(DataInputStream in, int maxBytes) throws IOException {
        byte[] header = new byte[HEADER];
        in.readFully(header);
        ByteBuffer b = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        long length = Integer.toUnsignedLong(b.getInt());
        int callId = b.getInt();
        int kind = Short.toUnsignedInt(b.getShort());
        if (length > maxBytes) {
            throw new ProtocolException("frame of " + length + " bytes is over " + maxBytes);
        }
        return new Frame(callId, kind, body(in, (int) length));
    }

    private static byte[] body(DataInputStream in, int length) throws IOException {
        if (length <= CHUNK) {
            byte[] body = new byte[length];
            in.readFully(body);
            return body;
        }
        byte[] body = in.readNBytes(length);  // grows as the bytes arrive
        if (body.length < length) {
            throw new EOFException("frame cut short: " + body.length + " of " + length + " bytes");
        }
        return body;
    }
}
