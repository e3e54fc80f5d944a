package rpcarena.worker.typedjson;

import java.io.IOException;
import java.net.InetSocketAddress;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Tool;
import rpcarena.worker.core.Workload;

/**
 * MML's protocol (infobip2016) in Java: typed JSON over multiplexed TCP, the wire of the Python
 * typed-json (either side talks to the other's), so the seed's three protocols meet in one
 * language with one kind of driver beside rest-jackson and http-javaser. Jackson writes and reads
 * the generated plain classes, as in rest-jackson; what differs is the types in the JSON and the
 * transport. One server process (the Python one forks two): its hello says so.
 */
public final class TypedJsonJava implements Contender {
    @Override
    public String id() {
        return "typed-json-java";
    }

    @Override
    public String protocol() {
        return "typed-json";
    }

    @Override
    public String description() {
        return "typed JSON (MML) over multiplexed TCP call-id frames, Jackson on plain Java classes";
    }

    @Override
    public Tool tool() {
        return Tool.of("jackson", "jackson");
    }

    @Override
    public RunningServer serve(InetSocketAddress address) throws IOException {
        return new FrameServer(address);
    }

    @Override
    public Workload workload(Spec spec) throws SpecError {
        return new TypedWorkload(spec);
    }
}
