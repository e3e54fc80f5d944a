package rpcarena.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import rpcarena.worker.core.Json;

/**
 * One document's table of proto/contract/fields.json (generated from src/rpcarena/contract.py):
 * each key's JSON kind, whether it may be null, whether it is required. Checks a document the way
 * the Python side parses it, so a Java output that passes here is one the orchestrator accepts.
 */
final class ContractFields {
    static final Path DIR = Path.of("../../proto/contract");

    private final String document;
    private final JsonNode table;

    private ContractFields(String document, JsonNode table) {
        this.document = document;
        this.table = table;
    }

    /** {@code document}: "drive_spec", "drive_result" or "ready". */
    static ContractFields of(String document) {
        JsonNode table = read("fields.json").get(document);
        if (table == null || !table.isObject()) {
            throw new IllegalArgumentException("fields.json has no table '" + document + "': regenerate it with tools/gen_contract.py");
        }
        return new ContractFields(document, table);
    }

    static JsonNode read(String name) {
        try {
            return Json.MAPPER.readTree(DIR.resolve(name).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read proto/contract/" + name, e);
        }
    }

    List<String> keys() {
        List<String> keys = new ArrayList<>();
        table.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    /** Fails with every problem of {@code json} at once, each naming its key. */
    void assertFollows(JsonNode json) {
        assertEquals(List.of(), problems(json), () -> "a " + document + " that the Python side would refuse: " + json);
    }

    List<String> problems(JsonNode json) {
        List<String> problems = new ArrayList<>();
        if (!json.isObject()) {
            return List.of("not a JSON object");
        }
        table.fields().forEachRemaining(key -> {
            if (key.getValue().get("required").asBoolean() && !json.has(key.getKey())) {
                problems.add("missing required key '" + key.getKey() + "'");
            }
        });
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            problems.addAll(checkKey(field.getKey(), field.getValue()));
        }
        return problems;
    }

    private List<String> checkKey(String key, JsonNode value) {
        JsonNode spec = table.get(key);
        if (spec == null) {
            return List.of("key '" + key + "' is not in the contract");
        }
        if (value.isNull()) {
            return spec.get("nullable").asBoolean() ? List.of() : List.of("key '" + key + "' must not be null");
        }
        String kind = spec.get("json").asText();
        return hasKind(value, kind) ? List.of() : List.of("key '" + key + "' must be " + kind + ", not " + value.getNodeType());
    }

    /** JSON kinds as Python's json module sees them: 5.0 is not an integer, 5 is a number. */
    private static boolean hasKind(JsonNode value, String kind) {
        return switch (kind) {
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "string" -> value.isTextual();
            case "boolean" -> value.isBoolean();
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            default -> throw new IllegalStateException("fields.json has a new JSON kind '" + kind + "': teach ContractFields");
        };
    }
}
