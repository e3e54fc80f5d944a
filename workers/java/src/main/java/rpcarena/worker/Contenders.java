package rpcarena.worker;

import java.util.List;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.grpc.GrpcJava;
import rpcarena.worker.javaser.HttpJavaSer;
import rpcarena.worker.restjackson.RestJackson;
import rpcarena.worker.tcpraw.TcpRaw;
import rpcarena.worker.typedjson.TypedJsonJava;

/** The registry: adding a contender is one line here (and its manifest entry in worker.json). */
public final class Contenders {
    public static final List<Contender> ALL = List.of(
            new RestJackson(),
            new HttpJavaSer(),
            new GrpcJava(),
            new TcpRaw(),
            new TypedJsonJava());

    private Contenders() {}

    public static Contender byId(String id) throws SpecError {
        for (Contender c : ALL) {
            if (c.id().equals(id)) {
                return c;
            }
        }
        throw new SpecError("unknown contender '" + id + "' (this worker has "
                + ALL.stream().map(Contender::id).toList() + ")");
    }
}
