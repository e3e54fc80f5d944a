package rpcarena.worker;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.PrintStream;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.Json;

/** {@code list}: the contenders of this worker, as JSON (a check for worker.json). */
final class ListCommand {
    private ListCommand() {}

    static int run(PrintStream out) {
        ArrayNode list = Json.MAPPER.createArrayNode();
        for (Contender c : Contenders.ALL) {
            list.addObject().put("id", c.id()).put("protocol", c.protocol()).put("description", c.description())
                    .putPOJO("tool", c.tool());
        }
        out.println(list);
        return 0;
    }
}
