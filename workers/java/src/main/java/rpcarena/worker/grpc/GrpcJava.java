package rpcarena.worker.grpc;

import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import rpcarena.worker.core.Connection;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Limits;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Tool;
import rpcarena.worker.core.Workload;
import rpcarena.worker.userschema.ServesUserSchema;
import rpcarena.worker.userschema.UserHandler;

/** grpc-java (Netty) unary server and client, one channel per client, and bidi InvertStream. */
public final class GrpcJava implements Contender, ServesUserSchema {
    @Override
    public String id() {
        return "grpc-java";
    }

    @Override
    public String protocol() {
        return "grpc";
    }

    @Override
    public String description() {
        return "grpc-java (Netty) unary server and client, one ManagedChannel per client (or --connections M shared by"
                + " the clients, many calls in flight on each); bidi InvertStream";
    }

    @Override
    public Tool tool() {
        return Tool.of("grpc-java", "grpc");
    }

    @Override
    public RunningServer serve(InetSocketAddress address) throws IOException {
        return running(bounded(NettyServerBuilder.forAddress(address)).addService(ArenaService.definition()).build().start());
    }

    /** arena.Arena and the user's service (its one method), side by side on one server. */
    @Override
    public RunningServer serveUser(InetSocketAddress address, UserHandler handler) throws IOException {
        return running(bounded(NettyServerBuilder.forAddress(address)).addService(ArenaService.definition())
                .addService(UserService.definition(handler)).build().start());
    }

    private static RunningServer running(Server server) {
        return new RunningServer() {
            @Override
            public int port() {
                return server.getPort();
            }

            @Override
            public void close() {
                server.shutdownNow();
            }
        };
    }

    /**
     * A message over the bound is RESOURCE_EXHAUSTED (grpc-java's default, said here); a
     * connection without a call, or not answering a ping, for the idle timeout is closed.
     */
    private static NettyServerBuilder bounded(NettyServerBuilder builder) {
        long idleMs = Limits.idleTimeoutMs();
        return builder.maxInboundMessageSize(Limits.MAX_REQUEST_BYTES)
                .maxConnectionIdle(idleMs, TimeUnit.MILLISECONDS)
                .keepAliveTime(idleMs, TimeUnit.MILLISECONDS)
                .keepAliveTimeout(idleMs, TimeUnit.MILLISECONDS)
                .handshakeTimeout(idleMs, TimeUnit.MILLISECONDS);
    }

    /** The drive spec's mode for a method of this type (a one-way stream is a stream a call). */
    private static String modeOf(MethodType type) {
        return switch (type) {
            case CLIENT_STREAMING -> "client_stream";
            case SERVER_STREAMING -> "server_stream";
            case BIDI_STREAMING -> "stream";
            default -> "unary";
        };
    }

    @Override
    public Workload workload(Spec spec) throws SpecError {
        ProtoPayloads payloads = ProtoPayloads.decode(spec);  // the user's generated messages, or arena.Arena's
        MethodType type = payloads.method.descriptor().getType();
        String mode = modeOf(type);
        if (!mode.equals(spec.mode())) {
            throw new SpecError("method " + spec.method() + " needs mode " + mode);
        }
        String target = spec.target();
        Duration timeout = spec.timeout();
        Channels.Shared shared = spec.connections() == null ? null : new Channels.Shared(target, spec.connections());
        return new Workload() {
            @Override
            public int slots() {
                return payloads.slots();
            }

            @Override
            public Connection open(int client) {
                Channels.Lease lease = shared == null ? Channels.own(target) : shared.lease(client);
                return switch (type) {
                    case BIDI_STREAMING -> new StreamConnection(lease, payloads, timeout);
                    case CLIENT_STREAMING, SERVER_STREAMING -> new OneWayConnection(lease, payloads, timeout);
                    default -> new UnaryConnection(lease, payloads, timeout);
                };
            }

            @Override
            public boolean multiplexes() {
                return true;
            }
        };
    }
}
