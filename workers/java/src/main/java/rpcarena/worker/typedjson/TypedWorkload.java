package rpcarena.worker.typedjson;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import rpcarena.worker.core.CallFailure;
import rpcarena.worker.core.Connection;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Workload;
import rpcarena.worker.pojo.PojoPayloads;

/**
 * A spec's calls over one Link that every load client shares (or, with the spec's connections
 * M, client i over link i mod M), each made again once it has died.
 */
final class TypedWorkload implements Workload {
    private final InetSocketAddress address;
    private final String method;
    private final Class<?> requestClass;
    private final PojoPayloads payloads;
    private final int timeoutMs;
    /** The shared links, connected on first use; null: not yet, or closed. */
    private final Link[] links;
    private int users;

    TypedWorkload(Spec spec) throws SpecError {
        if (spec.streaming()) {
            throw new SpecError("typed-json calls are unary; streaming is not implemented");
        }
        this.payloads = PojoPayloads.decode(spec);
        this.requestClass = PojoPayloads.classes(spec.method())[0];
        this.method = spec.method();
        this.address = address(spec.target());
        this.timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(spec.timeoutMs())));
        this.links = new Link[spec.connections() == null ? 1 : spec.connections()];
    }

    private static InetSocketAddress address(String target) throws SpecError {
        int colon = target.lastIndexOf(':');
        try {
            return new InetSocketAddress(target.substring(0, colon).replace("[", "").replace("]", ""),
                    Integer.parseInt(target.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw new SpecError("spec target '" + target + "' is not host:port");
        }
    }

    @Override
    public int slots() {
        return payloads.slots();
    }

    @Override
    public synchronized Connection open(int client) {
        users++;
        return new Calls(client % links.length);
    }

    /** Calls carry ids: many in flight on one link. */
    @Override
    public boolean multiplexes() {
        return true;
    }

    /** The live link i, connected on first use and after the last one died. */
    private synchronized Link link(int i) throws IOException {
        if (links[i] == null || !links[i].alive()) {
            links[i] = new Link(address, timeoutMs);
        }
        return links[i];
    }

    /** One load client's calls: its own requests, a shared link. */
    private final class Calls implements Connection {
        private final int link;

        Calls(int link) {
            this.link = link;
        }

        @Override
        public Object exchange(int slot) throws Exception {
            byte[] body = Envelope.call(method, requestClass, payloads.request(slot));
            Frames.Frame reply = link(link).call(body, timeoutMs);
            if (reply.kind() != Frames.OK) {
                throw new CallFailure(status(reply.kind()), new String(reply.body(), StandardCharsets.UTF_8));
            }
            return Envelope.result(reply.body(), payloads.responseClass());
        }

        @Override
        public boolean verify(int slot, Object reply) {
            return payloads.matches(slot, reply);
        }

        /** A timeout leaves the shared link to the others; a dead one is replaced on the next call. */
        @Override
        public void reconnect() {
        }

        /** The last load client to leave closes the links. */
        @Override
        public void close() {
            synchronized (TypedWorkload.this) {
                if (--users > 0) {
                    return;
                }
                for (int i = 0; i < links.length; i++) {
                    if (links[i] != null) {
                        links[i].close();
                        links[i] = null;
                    }
                }
            }
        }
    }

    /** The error kind of a reply's status, as the Python client names it (frames.RemoteError.kind). */
    static String status(int status) {
        return switch (status) {
            case Frames.BAD_REQUEST -> "status_bad_request";
            case Frames.UNKNOWN_METHOD -> "status_unknown_method";
            case Frames.INTERNAL -> "status_internal";
            default -> "status_" + status;
        };
    }
}
