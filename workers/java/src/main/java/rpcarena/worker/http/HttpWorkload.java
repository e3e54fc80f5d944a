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
    private final HttpPayloads payloads;
    private final Duration timeout;

    /** The contract's method {@code spec.method()} at {prefix}{Method}, on the plain Java classes. */
    public HttpWorkload(Spec spec, String prefix, BodyCodec codec) throws SpecError {
        this(spec, prefix + spec.method(), new CodecPayloads(PojoPayloads.decode(unary(spec)), codec));
    }

    /** Any method at {@code path}, its bodies made and read by {@code payloads} (a user's method). */
    public HttpWorkload(Spec spec, String path, HttpPayloads payloads) throws SpecError {
        this.payloads = payloads;
        this.uri = uri(unary(spec).target(), path);
        this.timeout = spec.timeout();
    }

    private static Spec unary(Spec spec) throws SpecError {
        if (spec.streaming()) {
            throw new SpecError(spec.mode() + " mode needs a streaming contender (grpc-java); HTTP is unary");
        }
        return spec;
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
        return new HttpConnection(uri, payloads, timeout);
    }
}
