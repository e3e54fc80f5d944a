package rpcarena.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.SpecError;
import sun.misc.Signal;

/** {@code serve --contender ID --host H --port P [--redis URL]}: serve until SIGTERM or stdin closes. */
final class ServeCommand {
    private ServeCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> options;
        Contender contender;
        try {
            options = options(args);
            contender = Contenders.byId(options.getOrDefault("contender", ""));
        } catch (SpecError e) {
            err.println(e.getMessage());
            return 2;
        }
        InetSocketAddress address = new InetSocketAddress(options.getOrDefault("host", "127.0.0.1"),
                Integer.parseInt(options.getOrDefault("port", "0")));
        try (RunningServer server = contender.serve(address)) {
            out.printf("{\"event\": \"ready\", \"port\": %d, \"pid\": %d, \"contract\": 1}%n",
                    server.port(), ProcessHandle.current().pid());
            out.flush();
            awaitStop(System.in);
        } catch (IOException e) {
            err.println("cannot serve " + contender.id() + " on " + address + ": " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** --name value pairs; --redis is accepted and unused (no contender here needs it). */
    private static Map<String, String> options(String[] args) throws SpecError {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new SpecError("serve: expected --name value pairs, got '" + args[i] + "'");
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    /** Returns on SIGTERM or at the end of stdin, whichever comes first. */
    private static void awaitStop(InputStream stdin) throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        Thread reader = new Thread(() -> {
            try {
                while (stdin.read() >= 0) {
                    continue;
                }
            } catch (IOException e) {
                // an unreadable stdin counts as closed
            }
            stop.countDown();
        }, "stdin-watch");
        reader.setDaemon(true);
        reader.start();
        stop.await();
    }
}
