package rpcarena.worker.typedjson;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import rpcarena.worker.core.Json;

/**
 * Typed JSON (MML's idea, infobip2016), as rpcarena.codec.typed_json writes it: every object
 * carries its message's full name, {@code {"@type": "arena.Person", "name": "Ada", ...}}, and a
 * reader checks it, and every field name, before it binds a field. The generated plain classes
 * (rpcarena.pojo, one per message, named as the message) say which fields hold messages.
 */
final class Typed {
    static final String TYPE = "@type";
    private static final String PACKAGE = "arena.";
    private static final String POJO_PACKAGE = "rpcarena.pojo";

    /** Per plain class: every field name, and for those holding a message, its class. */
    private static final ClassValue<Map<String, Class<?>>> FIELDS = new ClassValue<>() {
        @Override
        protected Map<String, Class<?>> computeValue(Class<?> type) {
            Map<String, Class<?>> fields = new LinkedHashMap<>();
            for (Field f : type.getFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    Class<?> held = f.getType().isArray() ? f.getType().getComponentType() : f.getType();
                    fields.put(f.getName(), isMessage(held) ? held : null);
                }
            }
            return fields;
        }
    };

    private Typed() {}

    /** Bytes that are not typed JSON of the expected message: the call is refused. */
    static final class DecodeError extends Exception {
        private static final long serialVersionUID = 1L;

        DecodeError(String message) {
            super(message, null, false, false);
        }
    }

    static String name(Class<?> type) {
        return PACKAGE + type.getSimpleName();
    }

    private static boolean isMessage(Class<?> type) {
        return type.getPackageName().equals(POJO_PACKAGE);
    }

    /** A plain object as typed JSON: "@type" first, nested messages typed too. */
    static ObjectNode toTyped(Class<?> type, Object value) {
        return typed(type, Json.MAPPER.valueToTree(value));
    }

    private static ObjectNode typed(Class<?> type, JsonNode plain) {
        ObjectNode out = Json.MAPPER.createObjectNode().put(TYPE, name(type));
        for (Map.Entry<String, Class<?>> field : FIELDS.get(type).entrySet()) {
            JsonNode value = plain.get(field.getKey());
            if (value == null || value.isNull()) {
                continue;
            }
            out.set(field.getKey(), field.getValue() == null ? value : typedValue(field.getValue(), value));
        }
        return out;
    }

    private static JsonNode typedValue(Class<?> type, JsonNode value) {
        if (!value.isArray()) {
            return typed(type, value);
        }
        ArrayNode out = Json.MAPPER.createArrayNode();
        value.forEach(v -> out.add(typed(type, v)));
        return out;
    }

    /** The plain object of typed JSON; DecodeError for a wrong or missing @type or an unknown field. */
    static <T> T fromTyped(Class<T> type, JsonNode node) throws DecodeError {
        ObjectNode plain = untyped(type, node);
        try {
            return Json.MAPPER.treeToValue(plain, type);
        } catch (JsonProcessingException e) {
            throw new DecodeError(name(type) + ": " + e.getOriginalMessage());
        } catch (IllegalArgumentException e) {  // a number out of its field's range
            throw new DecodeError(name(type) + ": " + e.getMessage());
        }
    }

    private static ObjectNode untyped(Class<?> type, JsonNode node) throws DecodeError {
        if (node == null || !node.isObject()) {
            throw new DecodeError(name(type) + " must be a JSON object");
        }
        if (!name(type).equals(node.path(TYPE).asText(null))) {
            throw new DecodeError("expected @type '" + name(type) + "', got " + abbreviate(node.get(TYPE)));
        }
        Map<String, Class<?>> fields = FIELDS.get(type);
        ObjectNode out = Json.MAPPER.createObjectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals(TYPE)) {
                continue;
            }
            if (!fields.containsKey(e.getKey())) {
                throw new DecodeError(name(type) + " has no field '" + abbreviate(e.getKey()) + "'");
            }
            Class<?> held = fields.get(e.getKey());
            out.set(e.getKey(), held == null ? e.getValue() : untypedValue(held, e.getValue()));
        }
        return out;
    }

    private static JsonNode untypedValue(Class<?> type, JsonNode value) throws DecodeError {
        if (!value.isArray()) {
            return untyped(type, value);
        }
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (JsonNode v : value) {
            out.add(untyped(type, v));
        }
        return out;
    }

    private static String abbreviate(Object value) {
        String s = String.valueOf(value);
        return s.length() > 80 ? s.substring(0, 80) : s;
    }
}
