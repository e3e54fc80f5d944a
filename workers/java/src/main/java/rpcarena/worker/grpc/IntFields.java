package rpcarena.worker.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import rpcarena.worker.core.Json;

/**
 * A message of int32 fields f1..fN (LargeData2048 and up) as values[number - 1]: what grpc-java
 * carries here instead of protobuf-java classes, which cannot be generated usefully at that size.
 */
final class IntFields {
    final int[] values;

    IntFields(int[] values) {
        this.values = values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IntFields other && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    /** Canonical JSON: fN names; a missing field is 0. */
    static final class JsonMapping implements MessageJson {
        private final int count;

        JsonMapping(int count) {
            this.count = count;
        }

        @Override
        public Object fromJson(JsonNode json) {
            int[] values = new int[count];
            for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                int number = number(field.getKey());
                if (number >= 1 && number <= count) {
                    values[number - 1] = field.getValue().asInt();
                }
            }
            return new IntFields(values);
        }

        @Override
        public JsonNode toJson(Object message) {
            ObjectNode json = Json.MAPPER.createObjectNode();
            int[] values = ((IntFields) message).values;
            for (int i = 0; i < values.length; i++) {
                if (values[i] != 0) {
                    json.put("f" + (i + 1), values[i]);
                }
            }
            return json;
        }

        private static int number(String name) {
            try {
                return name.startsWith("f") ? Integer.parseInt(name.substring(1)) : -1;
            } catch (NumberFormatException e) {
                return -1;  // not one of ours: ignored, as unknown fields are
            }
        }
    }
}
