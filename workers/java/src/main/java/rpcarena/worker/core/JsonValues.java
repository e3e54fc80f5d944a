package rpcarena.worker.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * Compares two canonical-JSON values as decoded values: a missing field equals its default,
 * an integer written as a string equals the number, doubles are equal within a relative tolerance.
 */
public final class JsonValues {
    public static final double DOUBLE_TOLERANCE = 1e-9;

    private JsonValues() {}

    public static boolean equal(JsonNode a, JsonNode b, double relTol) {
        if (isDefault(a) || isDefault(b)) {
            return isDefault(a) && isDefault(b);
        }
        if (a.isObject() && b.isObject()) {
            return objectsEqual(a, b, relTol);
        }
        if (a.isArray() && b.isArray()) {
            return arraysEqual(a, b, relTol);
        }
        if (isNumeric(a) && isNumeric(b)) {
            return numbersEqual(a, b, relTol);
        }
        return a.equals(b);
    }

    private static boolean objectsEqual(JsonNode a, JsonNode b, double relTol) {
        Set<String> keys = new HashSet<>();
        a.fieldNames().forEachRemaining(keys::add);
        b.fieldNames().forEachRemaining(keys::add);
        for (String k : keys) {
            if (!equal(a.get(k), b.get(k), relTol)) {
                return false;
            }
        }
        return true;
    }

    private static boolean arraysEqual(JsonNode a, JsonNode b, double relTol) {
        if (a.size() != b.size()) {
            return false;
        }
        Iterator<JsonNode> ia = a.elements();
        Iterator<JsonNode> ib = b.elements();
        while (ia.hasNext()) {
            if (!equal(ia.next(), ib.next(), relTol)) {
                return false;
            }
        }
        return true;
    }

    private static boolean numbersEqual(JsonNode a, JsonNode b, double relTol) {
        BigDecimal x = decimal(a);
        BigDecimal y = decimal(b);
        if (x.compareTo(y) == 0) {
            return true;
        }
        if (a.isIntegralNumber() || b.isIntegralNumber()) {
            return false;
        }
        double dx = x.doubleValue();
        double dy = y.doubleValue();
        return Math.abs(dx - dy) <= relTol * Math.max(Math.abs(dx), Math.abs(dy));
    }

    /** A default value: absent, null, 0, false, "", [] or an object of defaults. */
    static boolean isDefault(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return true;
        }
        if (n.isNumber()) {
            return n.decimalValue().signum() == 0 && !negativeZero(n);
        }
        if (n.isBoolean()) {
            return !n.booleanValue();
        }
        if (n.isTextual()) {
            return n.textValue().isEmpty();
        }
        return n.isArray() && n.isEmpty();
    }

    private static boolean negativeZero(JsonNode n) {
        return n.isFloatingPointNumber() && Double.doubleToRawLongBits(n.doubleValue()) == Long.MIN_VALUE;
    }

    private static boolean isNumeric(JsonNode n) {
        return n.isNumber() || (n.isTextual() && n.textValue().matches("-?\\d+"));
    }

    private static BigDecimal decimal(JsonNode n) {
        return n.isTextual() ? new BigDecimal(n.textValue()) : n.decimalValue();
    }
}
