package rpcarena.worker;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
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

/** {@code drive < spec.json > result.json}: one spec in, one result line out. */
final class DriveCommand {
    private DriveCommand() {}

    static int run(InputStream stdin, PrintStream out, PrintStream err) {
        try (JsonParser parser = Json.MAPPER.createParser(stdin)) {
            Spec spec = Spec.parse(Json.MAPPER.readTree(parser));
            BufferedReader rest = remainder(parser, stdin);
            Contender contender = Contenders.byId(spec.contender());
            Workload workload = contender.workload(spec);
            Result result = new Driver(spec, workload, warmS -> handshake(spec, out, rest, warmS)).run();
            out.println(result.toJson(contender.tool()));
            out.flush();
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
