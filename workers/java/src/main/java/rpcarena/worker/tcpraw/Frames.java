package rpcarena.worker.tcpraw;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import rpcarena.worker.core.Limits;

/**
 * The tcp-raw framing: a 4-byte big-endian length, then that many bytes; at most
 * {@link Limits#MAX_REQUEST_BYTES}. A length
 * is a claim, not memory: a payload over {@link #CHUNK} is read in chunks as it arrives.
 */
final class Frames {
    static final int MAX_BYTES = Limits.MAX_REQUEST_BYTES;
    /** Payloads up to this are read into an array of their announced size at once. */
    static final int CHUNK = 64 << 10;

    private Frames() {}

    static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    /** The payload of the next frame; ProtocolException (the caller closes) when it is too long. */
    static byte[] read(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_BYTES) {
            throw new ProtocolException("frame of " + Integer.toUnsignedString(length) + " bytes is over " + MAX_BYTES);
        }
        if (length <= CHUNK) {
            byte[] payload = new byte[length];
            in.readFully(payload);
            return payload;
        }
        byte[] payload = in.readNBytes(length);  // grows as the bytes arrive, 8 KiB at a time
        if (payload.length < length) {
            throw new EOFException("frame cut short: " + payload.length + " of " + length + " bytes");
        }
        return payload;
    }
}
