package rpcarena.worker.tcpraw;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Base64;
import java.util.List;
import rpcarena.worker.core.Connection;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Tool;
import rpcarena.worker.core.Workload;
import rpcarena.worker.userschema.ServesUserSchema;
import rpcarena.worker.userschema.UserHandler;

/** The floor: length-prefixed frames echoed over one blocking java.net.Socket per client. */
public final class TcpRaw implements Contender, ServesUserSchema {
    @Override
    public String id() {
        return "tcp-raw-java";
    }

    @Override
    public String protocol() {
        return "tcp-raw";
    }

    @Override
    public String description() {
        return "length-prefixed frames echoed over blocking java.net sockets (TCP_NODELAY), thread per connection";
    }

    @Override
    public Tool tool() {
        return new Tool("java.net.Socket", Runtime.version().toString(), "java" + Runtime.version());
    }

    @Override
    public RunningServer serve(InetSocketAddress address) throws IOException {
        return new EchoServer(address);
    }

    /** The floor echoes the bytes of a user's requests (their protobuf encodings) as it echoes any: no schema needed. */
    @Override
    public RunningServer serveUser(InetSocketAddress address, UserHandler handler) throws IOException {
        return serve(address);
    }

    /** A user's method comes as payloads_b64 too (its requests' protobuf encodings), so nothing differs. */
    @Override
    public Workload workload(Spec spec) throws SpecError {
        // stream mode is the same ping-pong on the same persistent connection: nothing differs
        byte[][] payloads = decode(spec.payloadsB64());
        InetSocketAddress address = address(spec.target());
        int timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(spec.timeoutMs())));
        return new Workload() {
            @Override
            public int slots() {
                return payloads.length;
            }

            @Override
            public Connection open(int client) {
                return new RawConnection(address, payloads, timeoutMs);
            }
        };
    }

    private static byte[][] decode(List<String> b64) throws SpecError {
        if (b64.isEmpty()) {
            throw new SpecError("a tcp-raw spec needs payloads_b64");
        }
        try {
            return b64.stream().map(Base64.getDecoder()::decode).toArray(byte[][]::new);
        } catch (IllegalArgumentException e) {
            throw new SpecError("payloads_b64: " + e.getMessage());
        }
    }

    static InetSocketAddress address(String target) throws SpecError {
        int colon = target.lastIndexOf(':');
        try {
            return new InetSocketAddress(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw new SpecError("spec target '" + target + "' is not host:port");
        }
    }
}
