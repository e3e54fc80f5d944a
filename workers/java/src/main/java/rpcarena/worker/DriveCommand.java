package rpcarena.worker;

import com.fasterxml.jackson.core.JsonParser;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Driver;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.Result;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Workload;

/**
 * {@code drive < spec.json > result.json}: one spec in, one result line out. {@code drive --many [--jit-of PID]}:
 * spec after spec, one JSON line each, each answered as {@code drive} answers one, until stdin ends (a
 * driver kept warm from cell to cell: its JIT's warm-up paid once); {@code --jit-of} names a JVM (the
 * server) whose JIT each warm-up also waits to be quiet.
 */
final class DriveCommand {
    static final String USAGE = "drive < spec.json | drive --many [--jit-of PID] < spec lines";

    private DriveCommand() {}

    /** The process's command line after {@code drive}. */
    static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            return run(stdin, out, err);
        }
        long[] jitOf;
        try {
            jitOf = manyOptions(args);
        } catch (SpecError e) {
            err.println(e.getMessage());
            return 2;
        }
        BufferedReader lines = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        return guarded(err, () -> {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.isBlank()) {
                    drive(Spec.parse(Json.MAPPER.readTree(line)), lines, out, jitOf);
                }
            }
        });
    }

    static int run(InputStream stdin, PrintStream out, PrintStream err) {
        return guarded(err, () -> {
            try (JsonParser parser = Json.MAPPER.createParser(stdin)) {
                Spec spec = Spec.parse(Json.MAPPER.readTree(parser));
                drive(spec, remainder(parser, stdin), out, new long[0]);
            }
        });
    }

    /** One spec driven, its result line written; {@code rest} is what follows the spec on stdin (the sync's line). */
    private static void drive(Spec spec, BufferedReader rest, PrintStream out, long[] jitOf)
            throws SpecError, InterruptedException {
        Contender contender = Contenders.byId(spec.contender());
        Workload workload = contender.workload(spec);
        Result result = new Driver(spec, workload, warmS -> handshake(spec, out, rest, warmS), jitOf).run();
        out.println(result.toJson(contender.tool()));
        out.flush();
    }

    /** What a drive does, its failures told as the contract says: exit 2 and one line for a bad spec. */
    private interface Drive {
        void run() throws SpecError, IOException, InterruptedException;
    }

    private static int guarded(PrintStream err, Drive drive) {
        try {
            drive.run();
            return 0;
        } catch (SpecError e) {
            err.println(e.getMessage());
        } catch (IOException e) {
            err.println("bad spec JSON on stdin: " + e.getMessage().lines().findFirst().orElse(""));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("interrupted");
        } catch (RuntimeException e) {
            e.printStackTrace(err);
            return 1;
        }
        return 2;
    }

    /** {@code --many [--jit-of PID ...]}: the pids whose JIT each warm-up also watches. */
    private static long[] manyOptions(String[] args) throws SpecError {
        if (!args[0].equals("--many")) {
            throw new SpecError("usage: " + USAGE);
        }
        long[] pids = new long[(args.length - 1) / 2];
        for (int i = 1; i < args.length; i += 2) {
            if (!args[i].equals("--jit-of") || i + 1 >= args.length) {
                throw new SpecError("usage: " + USAGE);
            }
            try {
                pids[i / 2] = Long.parseLong(args[i + 1]);
            } catch (NumberFormatException e) {
                throw new SpecError("drive --jit-of: a pid, not '" + args[i + 1] + "'");
            }
        }
        return pids;
    }

    /**
     * What follows the spec's line on stdin: what Jackson read ahead (less the end of the spec's
     * line), then the stream itself.
     */
    private static BufferedReader remainder(JsonParser parser, InputStream stdin) throws IOException {
        ByteArrayOutputStream buffered = new ByteArrayOutputStream();
        parser.releaseBuffered(buffered);
        byte[] ahead = buffered.toByteArray();
        int from = 0;
        while (from < ahead.length && (ahead[from] == ' ' || ahead[from] == '\t' || ahead[from] == '\r')) {
            from++;
        }
        if (from < ahead.length && ahead[from] == '\n') {
            from++;
        }
        InputStream rest = new SequenceInputStream(new ByteArrayInputStream(ahead, from, ahead.length - from), stdin);
        return new BufferedReader(new InputStreamReader(rest, StandardCharsets.UTF_8));
    }

    /**
     * The contract's sync: say "warm" (with how long the warm-up took), then wait for one line on
     * stdin (the end of stdin also releases: nobody is left to wait for).
     */
    private static void handshake(Spec spec, PrintStream out, BufferedReader rest, double warmS) {
        if (!spec.sync()) {
            return;
        }
        out.println(String.format(Locale.ROOT, "{\"event\": \"warm\", \"warmup_s\": %.3f}", warmS));
        out.flush();
        try {
            rest.readLine();
        } catch (IOException e) {
            // a closed stdin releases the barrier too
        }
    }
}
