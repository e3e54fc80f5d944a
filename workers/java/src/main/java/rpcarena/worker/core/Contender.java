package rpcarena.worker.core;

import java.io.IOException;
import java.net.InetSocketAddress;

/** One RPC mechanism of this worker: its server and its client. Register it in {@link Contenders}. */
public interface Contender {
    String id();

    String protocol();

    String description();

    Tool tool();

    /** Starts the server on the address (port 0 = any free port); it accepts connections on return. */
    RunningServer serve(InetSocketAddress address) throws IOException;

    /** Decodes the spec's payloads once, before any call; SpecError for what this client cannot run. */
    Workload workload(Spec spec) throws SpecError;
}
