package rpcarena.worker.userschema;

import java.io.IOException;
import java.net.InetSocketAddress;
import rpcarena.worker.core.RunningServer;

/** A contender that serves a user's method ({@code serve --schema PATH}) besides its own. */
public interface ServesUserSchema {
    /** Starts the server with the user's method added, answered by {@code handler}. */
    RunningServer serveUser(InetSocketAddress address, UserHandler handler) throws IOException;
}
