package rpcarena.worker.userschema;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import rpcarena.worker.core.Json;
import rpcarena.worker.core.SpecError;

/**
 * served.json, what {@code serve --schema PATH} reads (ServedFile in
 * src/rpcarena/userschema/workload.py). Its descriptor set is not read: the generated code of this
 * build has the schema. Pairs are [request, reply] in proto JSON, kept as text for JsonFormat.
 */
public record ServedFile(String method, String reply, List<String[]> pairs, double serverWorkUs, double serverWaitUs,
        int streamMessages) {
    /** The most replies a served file may ask of a server stream (the Python side's --stream-messages bound). */
    static final int MAX_STREAM_MESSAGES = 10_000;
    private static final String FIX = "; give the file rpcarena wrote for the run";

    public static ServedFile read(Path path) throws SpecError {
        JsonNode doc;
        try {
            doc = Json.MAPPER.readTree(path.toFile());
        } catch (IOException e) {
            throw new SpecError("bad --schema " + path + ": " + e.getMessage().lines().findFirst().orElse("") + FIX);
        }
        if (doc == null || !doc.isObject()) {
            throw new SpecError("bad --schema " + path + ": not a JSON object" + FIX);
        }
        ServedFile file = new ServedFile(doc.path("method").asText(""), doc.path("reply").asText("echo"),
                pairs(doc.path("pairs"), path), doc.path("server_work_us").asDouble(0), doc.path("server_wait_us").asDouble(0),
                doc.path("stream_messages").asInt(1));
        if (file.serverWorkUs < 0 || file.serverWaitUs < 0) {
            throw new SpecError("bad --schema " + path + ": negative server work or wait");
        }
        if (file.streamMessages < 1 || file.streamMessages > MAX_STREAM_MESSAGES) {
            throw new SpecError("bad --schema " + path + ": stream_messages " + file.streamMessages + ": give 1 to "
                    + MAX_STREAM_MESSAGES);
        }
        return file;
    }

    private static List<String[]> pairs(JsonNode array, Path path) throws SpecError {
        List<String[]> out = new ArrayList<>();
        for (JsonNode pair : array) {
            if (!pair.isArray() || pair.size() != 2) {
                throw new SpecError("bad --schema " + path + ": pair " + (out.size() + 1) + ": give [request, reply]");
            }
            out.add(new String[] {pair.get(0).toString(), pair.get(1).toString()});
        }
        return out;
    }
}
