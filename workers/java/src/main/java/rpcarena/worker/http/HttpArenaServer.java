package rpcarena.worker.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import rpcarena.pojo.PojoCatalog;
import rpcarena.worker.core.Limits;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.pojo.PojoMessages;
import rpcarena.worker.semantics.Operation;
import rpcarena.worker.semantics.Refused;

/**
 * POST {prefix}{Method} on the JDK's com.sun.net.httpserver, bodies in a {@link BodyCodec}.
 * Run the JVM with -Dsun.net.httpserver.nodelay=true, or Nagle costs every reply ~44 ms.
 * A body is read as it arrives and at most {@link #MAX_BODY} of it (413 beyond, and at once for a
 * Content-Length over it). A request must arrive, and its reply be taken, within the idle timeout,
 * and a keep-alive connection idle that long is closed (the JDK server's own timers, set below);
 * the handler pool grows past its core under slow peers instead of waiting on them, so 200
 * connections trickling headers leave the others answered.
 */
public final class HttpArenaServer implements RunningServer {
    /** The largest body read, the contract's bound on a request. */
    public static final int MAX_BODY = Limits.MAX_REQUEST_BYTES;
    /** Handler threads at most: a slow peer holds one until the JDK's timer closes it. */
    private static final int MAX_THREADS = 1024;
    /** Each unary rpc's row of the table, looked up once: a missing row fails the first server. */
    private static final Map<String, UnaryOperator<Object>> OPERATIONS = PojoCatalog.UNARY.keySet().stream()
            .collect(Collectors.toUnmodifiableMap(rpc -> rpc, rpc -> Operation.of(rpc).on(PojoMessages.INSTANCE)));

    static {
        // read once, when the JDK's server classes load: set it here too, so no launcher can forget it
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        // also read once: seconds a request may take to arrive, its reply to be taken, and a
        // connection to idle; the timer that enforces them looks every timerMillis
        int idleMs = Limits.idleTimeoutMs();
        String idleS = Integer.toString(Math.max(1, idleMs / 1000));
        System.setProperty("sun.net.httpserver.maxReqTime", idleS);
        System.setProperty("sun.net.httpserver.maxRspTime", idleS);
        System.setProperty("sun.net.httpserver.idleInterval", idleS);
        System.setProperty("sun.net.httpserver.timerMillis", Integer.toString(Math.min(1000, Math.max(100, idleMs / 4))));
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final String prefix;
    private final BodyCodec codec;
    private final int maxBody;

    public HttpArenaServer(InetSocketAddress address, String prefix, BodyCodec codec) throws IOException {
        this(address, prefix, codec, MAX_BODY);
    }

    /** With another body limit (a small one in tests). */
    public HttpArenaServer(InetSocketAddress address, String prefix, BodyCodec codec, int maxBody) throws IOException {
        this.prefix = prefix;
        this.codec = codec;
        this.maxBody = maxBody;
        this.server = HttpServer.create(address, Limits.listenBacklog());
        this.executor = handlerPool(4 * Runtime.getRuntime().availableProcessors());
        server.createContext(prefix, this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /**
     * {@code core} threads kept, more made while every one is busy (a slow peer blocks the thread
     * reading its request), up to {@link #MAX_THREADS}; past that a connection is left to the
     * JDK's timer, which closes it.
     */
    private static ExecutorService handlerPool(int core) {
        return new ThreadPoolExecutor(core, MAX_THREADS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                new ThreadPoolExecutor.DiscardPolicy());
    }

    @Override
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestURI().getPath().substring(prefix.length());
            Class<?>[] classes = PojoCatalog.UNARY.get(method);
            if (!exchange.getRequestMethod().equals("POST")) {
                reply(exchange, 405, "text/plain", bytes("use POST"));
            } else if (classes == null) {
                reply(exchange, 404, "text/plain", bytes("no method " + method));
            } else {
                answer(exchange, method, classes[0]);
            }
        }
    }

    private void answer(HttpExchange exchange, String method, Class<?> requestClass) throws IOException {
        byte[] body = body(exchange);
        if (body == null) {
            return;
        }
        Object request;
        try {
            request = codec.decode(body, requestClass);
        } catch (IOException | RuntimeException e) {
            reply(exchange, 400, "text/plain", bytes("request does not decode: " + e.getMessage()));
            return;
        }
        Object response;
        try {
            response = OPERATIONS.get(method).apply(request);
        } catch (Refused refused) {
            reply(exchange, 400, "text/plain", bytes(refused.getMessage()));
            return;
        }
        reply(exchange, 200, codec.contentType(), codec.encode(response));
    }

    /** The request's body, read as it arrives; null once a body over the limit has been answered 413. */
    private byte[] body(HttpExchange exchange) throws IOException {
        if (announcedOver(exchange)) {
            reply(exchange, 413, "text/plain", bytes("a body over " + maxBody + " bytes"));
            return null;
        }
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readNBytes(maxBody + 1);  // in chunks as it arrives, never a Content-Length's claim
        }
        if (body.length > maxBody) {
            reply(exchange, 413, "text/plain", bytes("a body over " + maxBody + " bytes"));
            return null;
        }
        return body;
    }

    /** One more method: POST {@code path}, its body answered by {@code handler} (a user's method). */
    public void route(String path, String contentType, BodyHandler handler) {
        server.createContext(path, exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("POST")) {
                    reply(exchange, 405, "text/plain", bytes("use POST"));
                } else if (!exchange.getRequestURI().getPath().equals(path)) {
                    reply(exchange, 404, "text/plain", bytes("no method " + exchange.getRequestURI().getPath()));
                } else {
                    answer(exchange, contentType, handler);
                }
            }
        });
    }

    private void answer(HttpExchange exchange, String contentType, BodyHandler handler) throws IOException {
        byte[] body = body(exchange);
        if (body == null) {
            return;
        }
        byte[] reply;
        try {
            reply = handler.answer(body);
        } catch (IOException | Refused e) {
            reply(exchange, 400, "text/plain", bytes(e.getMessage()));
            return;
        }
        reply(exchange, 200, contentType, reply);
    }

    /** A route's answer: the request's body in, the reply's out; IOException or Refused is the caller's 400. */
    @FunctionalInterface
    public interface BodyHandler {
        byte[] answer(byte[] body) throws IOException;
    }

    /** A Content-Length over the limit: refused before a byte of the body is read. */
    private boolean announcedOver(HttpExchange exchange) {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        try {
            return length != null && Long.parseLong(length.trim()) > maxBody;
        } catch (NumberFormatException e) {
            return false;  // the JDK server refuses a malformed length before this
        }
    }

    private static void reply(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
