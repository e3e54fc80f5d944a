package rpcarena.worker.userschema;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor.JavaType;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Gives back the sign JsonFormat drops from a negative zero. JsonFormat reads a double or float
 * through {@code new BigDecimal(text).doubleValue()}, and a BigDecimal has no negative zero: a
 * sample's {@code -0.0} would be served as {@code 0.0} (a wrong answer the Python client sees) and a
 * request holding it would not find its reply. After JsonFormat has merged a text into a fresh
 * builder, this walks the same text with the builder's descriptor and sets -0.0 wherever a double
 * or float field (singular, repeated by index, map value by key, at any depth of messages) reads as
 * zero from a number or string whose text starts with '-'. Jackson's streaming parser, not its tree:
 * a tree reads {@code -0} as the integer 0, sign gone. Well-known types are left as JsonFormat reads
 * them.
 */
final class NegativeZeros {
    /** JsonFormat's Gson reader is lenient: these are the leniencies a sample or a client may use. */
    private static final JsonFactory LENIENT = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS)
            .enable(JsonReadFeature.ALLOW_LEADING_DECIMAL_POINT_FOR_NUMBERS)
            .enable(JsonReadFeature.ALLOW_TRAILING_DECIMAL_POINT_FOR_NUMBERS)
            .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
            .enable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES)
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .build();

    private NegativeZeros() {}

    /** Sets -0.0 in {@code fresh} (just merged from {@code json}) where {@code json} has a negative zero. */
    static void restore(String json, Message.Builder fresh) throws InvalidProtocolBufferException {
        if (!json.contains("-0")) {
            return; // every negative zero's text starts "-0": the common case costs one scan
        }
        try (JsonParser p = LENIENT.createParser(json)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                object(p, fresh);
            }
        } catch (IOException e) {
            throw new InvalidProtocolBufferException("JSON that only a lenient reader takes: " + e.getMessage());
        }
    }

    /** The object {@code p} is at, into {@code b}; true when a field changed. */
    private static boolean object(JsonParser p, Message.Builder b) throws IOException {
        boolean changed = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            FieldDescriptor f = field(b.getDescriptorForType(), p.currentName());
            p.nextToken();
            if (f != null && p.currentToken() != JsonToken.VALUE_NULL) {
                changed |= f.isMapField() ? map(p, b, f) : f.isRepeated() ? array(p, b, f) : singular(p, b, f);
            }
            p.skipChildren(); // a value not walked; at the end of one walked, nothing to skip
        }
        return changed;
    }

    /** The field a JSON key names: its proto name or its json_name, as JsonFormat accepts both. */
    private static FieldDescriptor field(Descriptor type, String key) {
        for (FieldDescriptor f : type.getFields()) {
            if (f.getName().equals(key) || f.getJsonName().equals(key)) {
                return f;
            }
        }
        return null;
    }

    private static boolean singular(JsonParser p, Message.Builder b, FieldDescriptor f) throws IOException {
        Object fixed = value(p, f, b.getField(f));
        if (fixed != null) {
            b.setField(f, fixed);
        }
        return fixed != null;
    }

    private static boolean array(JsonParser p, Message.Builder b, FieldDescriptor f) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            return false;
        }
        boolean changed = false;
        for (int i = 0; p.nextToken() != JsonToken.END_ARRAY; i++) {
            Object fixed = value(p, f, b.getRepeatedField(f, i));
            if (fixed != null) {
                b.setRepeatedField(f, i, fixed);
            }
            changed |= fixed != null;
            p.skipChildren();
        }
        return changed;
    }

    /** A map's JSON is an object keyed by the key's text: each entry found by that text. */
    private static boolean map(JsonParser p, Message.Builder b, FieldDescriptor f) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return false;
        }
        FieldDescriptor keyField = f.getMessageType().findFieldByNumber(1);
        FieldDescriptor valueField = f.getMessageType().findFieldByNumber(2);
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < b.getRepeatedFieldCount(f); i++) {
            index.put(keyText(keyField, ((Message) b.getRepeatedField(f, i)).getField(keyField)), i);
        }
        boolean changed = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            Integer i = index.get(p.currentName());
            p.nextToken();
            if (i != null) {
                Message entry = (Message) b.getRepeatedField(f, i);
                Object fixed = value(p, valueField, entry.getField(valueField));
                if (fixed != null) {
                    b.setRepeatedField(f, i, entry.toBuilder().setField(valueField, fixed).build());
                }
                changed |= fixed != null;
            }
            p.skipChildren();
        }
        return changed;
    }

    /** A map key as its JSON text: unsigned types as unsigned (Java holds them in signed ints). */
    private static String keyText(FieldDescriptor key, Object value) {
        return switch (key.getType()) {
            case UINT32, FIXED32 -> Integer.toUnsignedString((Integer) value);
            case UINT64, FIXED64 -> Long.toUnsignedString((Long) value);
            default -> String.valueOf(value);
        };
    }

    /** The value to set in place of {@code read} (what JsonFormat read there), or null to keep it. */
    private static Object value(JsonParser p, FieldDescriptor f, Object read) throws IOException {
        JavaType type = f.getJavaType();
        if (type == JavaType.DOUBLE || type == JavaType.FLOAT) {
            if (!negative(p) || ((Number) read).doubleValue() != 0.0) {
                return null;
            }
            return type == JavaType.DOUBLE ? (Object) (-0.0) : (Object) (-0.0f);
        }
        if (type == JavaType.MESSAGE && p.currentToken() == JsonToken.START_OBJECT && !wellKnown(f)) {
            Message.Builder sub = ((Message) read).toBuilder();
            return object(p, sub) ? sub.build() : null;
        }
        return null;
    }

    /** A number or a numeric string whose text has a minus sign: read as zero, it is -0. */
    private static boolean negative(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        boolean numeric = t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_STRING;
        return numeric && p.getText().startsWith("-");
    }

    private static boolean wellKnown(FieldDescriptor f) {
        return f.getMessageType().getFullName().startsWith("google.protobuf.");
    }
}
