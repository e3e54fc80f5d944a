package rpcarena.worker.http;

import java.net.URI;
import java.time.Duration;
import rpcarena.worker.core.Connection;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Workload;
import rpcarena.worker.pojo.PojoPayloads;

/** POST {prefix}{Method} calls with bodies in a codec, one HttpClient per load client. */
public final class HttpWorkload implements Workload {
    private final URI uri;
    private final BodyCodec codec;
    private final PojoPayloads payloads;
    private final Duration timeout;

    public HttpWorkload(Spec spec, String prefix, BodyCodec codec) throws SpecError {
        if (spec.streaming()) {
            throw new SpecError("stream mode needs a streaming contender (grpc-java); HTTP is unary");
        }
        this.payloads = PojoPayloads.decode(spec);
        this.uri = uri(spec.target(), prefix + spec.method());
        this.codec = codec;
        this.timeout = spec.timeout();
    }

    private static URI uri(String target, String path) throws SpecError {
        try {
            return URI.create("http://" + target + path);
        } catch (IllegalArgumentException e) {
            throw new SpecError("spec target '" + target + "' is not host:port");
        }
    }

    @Override
    public int slots() {
        return payloads.slots();
    }

    @Override
    public Connection open(int client) {
        return new HttpConnection(uri, codec, payloads, timeout);
    }
}
