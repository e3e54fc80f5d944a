package rpcarena.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.userschema.ServesUserSchema;
import rpcarena.worker.userschema.UserHandler;

/**
 * {@code serve --contender ID --host H --port P [--redis URL] [--schema served.json]}: serve until
 * SIGTERM or stdin closes; with --schema, the user's method too (a variant built with its schema).
 */
final class ServeCommand {
    private ServeCommand() {}

    /** {@code stdin} is the process's own in production; its end stops the server, as SIGTERM does. */
    static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
        Map<String, String> options;
        Contender contender;
        UserHandler user;
        try {
            options = options(args);
            contender = Contenders.byId(options.getOrDefault("contender", ""));
            user = options.containsKey("schema") ? userOf(contender, Path.of(options.get("schema")), err) : null;
        } catch (SpecError e) {
            err.println(e.getMessage());
            return 2;
        }
        InetSocketAddress address = new InetSocketAddress(options.getOrDefault("host", "127.0.0.1"),
                Integer.parseInt(options.getOrDefault("port", "0")));
        try (RunningServer server = user == null ? contender.serve(address) : ((ServesUserSchema) contender).serveUser(address, user)) {
            out.printf("{\"event\": \"ready\", \"port\": %d, \"pid\": %d, \"contract\": %d}%n",
                    server.port(), ProcessHandle.current().pid(), Spec.CONTRACT);
            out.flush();
            awaitStop(stdin);
        } catch (IOException e) {
            err.println("cannot serve " + contender.id() + " on " + address + ": " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** The handler of served.json, for a contender that serves a user's method. */
    private static UserHandler userOf(Contender contender, Path served, PrintStream err) throws SpecError {
        if (!(contender instanceof ServesUserSchema)) {
            throw new SpecError(contender.id() + " does not serve a user's schema (see user_lacks in worker.json)");
        }
        return UserHandler.open(served, err);
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

    /**
     * Returns on SIGTERM or at the end of stdin, whichever comes first. sun.misc.Signal (jdk.unsupported,
     * JEP 260) is the only way in Java 17 to catch SIGTERM and still exit 0, as the contract asks;
     * javac's "internal proprietary API" note about it cannot be suppressed under --release.
     */
    private static void awaitStop(InputStream stdin) throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        var term = new sun.misc.Signal("TERM");
        var previous = sun.misc.Signal.handle(term, s -> stop.countDown());
        try {
            watchForEnd(stdin, stop);
            stop.await();
        } finally {
            sun.misc.Signal.handle(term, previous);  // a caller that goes on (a test) gets the JVM's handler back
        }
    }

    private static void watchForEnd(InputStream stdin, CountDownLatch stop) {
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
    }
}
