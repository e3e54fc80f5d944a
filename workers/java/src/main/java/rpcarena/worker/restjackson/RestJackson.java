package rpcarena.worker.restjackson;

import java.io.IOException;
import java.net.InetSocketAddress;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Tool;
import rpcarena.worker.core.Workload;
import rpcarena.worker.http.BodyCodec;
import rpcarena.worker.http.HttpArenaServer;
import rpcarena.worker.http.HttpWorkload;
import rpcarena.worker.userschema.ServesUserSchema;
import rpcarena.worker.userschema.UserHandler;
import rpcarena.worker.userschema.UserMethod;

/** HTTP/1.1 + JSON with Jackson on plain Java classes: the Infobip seed's "HTTP/JSON". */
public final class RestJackson implements Contender, ServesUserSchema {
    static final String PREFIX = "/arena/";

    /** Canonical JSON (proto field names) through Jackson data binding. */
    public static final BodyCodec JSON = new BodyCodec() {
        @Override
        public String contentType() {
            return "application/json";
        }

        @Override
        public byte[] encode(Object message) throws IOException {
            return Json.MAPPER.writeValueAsBytes(message);
        }

        @Override
        public Object decode(byte[] body, Class<?> type) throws IOException {
            return Json.MAPPER.readValue(body, type);
        }
    };

    @Override
    public String id() {
        return "rest-jackson";
    }

    @Override
    public String protocol() {
        return "http-json";
    }

    @Override
    public String description() {
        return "JDK HttpServer + java.net.http.HttpClient (HTTP/1.1), JSON with Jackson on plain Java classes";
    }

    @Override
    public Tool tool() {
        return Tool.of("jackson", "jackson");
    }

    @Override
    public RunningServer serve(InetSocketAddress address) throws IOException {
        return new HttpArenaServer(address, PREFIX, JSON);
    }

    /** The contract's routes and the user's method, its bodies in proto JSON ({@link UserJson}). */
    @Override
    public RunningServer serveUser(InetSocketAddress address, UserHandler handler) throws IOException {
        HttpArenaServer server = new HttpArenaServer(address, PREFIX, JSON);
        UserJson.route(server, handler);
        return server;
    }

    @Override
    public Workload workload(Spec spec) throws SpecError {
        if (spec.user()) {
            UserMethod method = UserMethod.lookup(spec.method());
            return new HttpWorkload(spec, UserJson.path(method.key()), UserPayloads.decode(spec, method));
        }
        return new HttpWorkload(spec, PREFIX, JSON);
    }
}
