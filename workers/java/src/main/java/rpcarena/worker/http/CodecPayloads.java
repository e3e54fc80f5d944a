package rpcarena.worker.http;

import java.io.IOException;
import rpcarena.worker.pojo.PojoPayloads;

/** The contract's payloads on the plain Java classes, in a body codec (Jackson, Java serialization). */
record CodecPayloads(PojoPayloads payloads, BodyCodec codec) implements HttpPayloads {
    @Override
    public int slots() {
        return payloads.slots();
    }

    @Override
    public String contentType() {
        return codec.contentType();
    }

    @Override
    public byte[] request(int slot) throws IOException {
        return codec.encode(payloads.request(slot));
    }

    @Override
    public Object reply(byte[] body) throws IOException {
        return codec.decode(body, payloads.responseClass());
    }

    @Override
    public boolean matches(int slot, Object reply) {
        return payloads.matches(slot, reply);
    }
}
