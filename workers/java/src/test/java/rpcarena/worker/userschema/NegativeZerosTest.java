package rpcarena.worker.userschema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DoubleValue;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import org.junit.jupiter.api.Test;
import rpcarena.arena.ItemList;
import rpcarena.arena.VectorPair;

/** A negative zero in proto JSON stays negative wherever a double or float sits. */
class NegativeZerosTest {
    private static final long NEG = Double.doubleToRawLongBits(-0.0);
    private static final ProtoJsonParser PARSER = new ProtoJsonParser(JsonFormat.parser());

    /** t.Sample: the shapes a double takes in a user's schema, built as protoc would describe them. */
    private static Descriptor sample() throws Exception {
        DescriptorProto inner = DescriptorProto.newBuilder().setName("Inner").addField(field("x", 1, Type.TYPE_DOUBLE)).build();
        DescriptorProto.Builder sample = DescriptorProto.newBuilder().setName("Sample")
                .addField(field("d", 1, Type.TYPE_DOUBLE))
                .addField(field("ds", 2, Type.TYPE_DOUBLE).setLabel(Label.LABEL_REPEATED))
                .addField(message("m", 3, ".t.Sample.MEntry").setLabel(Label.LABEL_REPEATED))
                .addField(message("inner", 4, ".t.Inner"))
                .addField(field("small_f", 5, Type.TYPE_FLOAT))
                .addField(message("inners", 6, ".t.Inner").setLabel(Label.LABEL_REPEATED))
                .addField(message("mi", 7, ".t.Sample.MiEntry").setLabel(Label.LABEL_REPEATED))
                .addField(message("wrapped", 8, ".google.protobuf.DoubleValue")) // left to JsonFormat
                .addField(field("plus", 9, Type.TYPE_DOUBLE))
                .addNestedType(entry("MEntry", field("value", 2, Type.TYPE_DOUBLE)))
                .addNestedType(entry("MiEntry", message("value", 2, ".t.Inner")));
        FileDescriptorProto file = FileDescriptorProto.newBuilder().setName("t.proto").setPackage("t").setSyntax("proto3")
                .addDependency("google/protobuf/wrappers.proto").addMessageType(inner).addMessageType(sample).build();
        FileDescriptor wrappers = DoubleValue.getDescriptor().getFile();
        return FileDescriptor.buildFrom(file, new FileDescriptor[] {wrappers}).findMessageTypeByName("Sample");
    }

    private static FieldDescriptorProto.Builder field(String name, int number, Type type) {
        return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type).setLabel(Label.LABEL_OPTIONAL);
    }

    private static FieldDescriptorProto.Builder message(String name, int number, String type) {
        return field(name, number, Type.TYPE_MESSAGE).setTypeName(type);
    }

    private static DescriptorProto entry(String name, FieldDescriptorProto.Builder value) {
        return DescriptorProto.newBuilder().setName(name).setOptions(MessageOptions.newBuilder().setMapEntry(true))
                .addField(field("key", 1, Type.TYPE_STRING)).addField(value).build();
    }

    private static Object get(Message m, String path) {
        Object at = m;
        for (String step : path.split("\\.")) {
            Message msg = (Message) at;
            at = msg.getField(msg.getDescriptorForType().findFieldByName(step));
        }
        return at;
    }

    private static Object item(Message m, String field, int i) {
        return m.getRepeatedField(m.getDescriptorForType().findFieldByName(field), i);
    }

    /** The map entry of {@code key} in {@code field}: its value. */
    private static Object entryValue(Message m, String field, String key) {
        var f = m.getDescriptorForType().findFieldByName(field);
        for (int i = 0; i < m.getRepeatedFieldCount(f); i++) {
            Message e = (Message) m.getRepeatedField(f, i);
            if (e.getField(e.getDescriptorForType().findFieldByNumber(1)).equals(key)) {
                return e.getField(e.getDescriptorForType().findFieldByNumber(2));
            }
        }
        throw new AssertionError("no key " + key + " in " + field);
    }

    private static void assertNegativeZero(Object value, String where) {
        assertEquals(NEG, Double.doubleToRawLongBits((Double) value), where + " lost the sign of -0.0");
    }

    @Test
    void everyShapeOfDoubleKeepsTheSignOfANegativeZero() throws Exception {
        String json = """
                {"d": -0.0, "ds": [1.5, -0.0, -0, "-0"], "m": {"a": 2.0, "z": -0e0},
                 "inner": {"x": -0.0}, "smallF": -0.0, "inners": [{"x": 1}, {"x": -0.0}],
                 "mi": {"k": {"x": -0.0}}, "wrapped": -0.0, "plus": 0.0}""";
        Message m = PARSER.parse(json, DynamicMessage.getDefaultInstance(sample()));
        assertNegativeZero(get(m, "d"), "a double");
        assertEquals(1.5, item(m, "ds", 0));
        for (int i = 1; i < 4; i++) {
            assertNegativeZero(item(m, "ds", i), "repeated double " + i);
        }
        assertEquals(2.0, entryValue(m, "m", "a"));
        assertNegativeZero(entryValue(m, "m", "z"), "a map<string, double> value");
        assertNegativeZero(get(m, "inner.x"), "a nested message's double");
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits((Float) get(m, "small_f")), "a float by its json_name");
        assertNegativeZero(get((Message) item(m, "inners", 1), "x"), "a repeated message's double");
        assertNegativeZero(get((Message) entryValue(m, "mi", "k"), "x"), "a map message value's double");
        assertEquals(0L, Double.doubleToRawLongBits((Double) get(m, "plus")), "a positive zero stays positive");
    }

    /** Generated builders (what the worker serves) take the restored values too, at any depth. */
    @Test
    void generatedMessagesKeepTheSign() throws Exception {
        VectorPair pair = (VectorPair) PARSER.parse("{\"a\": {\"x\": -0.0, \"y\": 0.0}, \"b\": {\"z\": -0}}",
                VectorPair.getDefaultInstance());
        assertEquals(NEG, Double.doubleToRawLongBits(pair.getA().getX()));
        assertEquals(0L, Double.doubleToRawLongBits(pair.getA().getY()));
        assertEquals(NEG, Double.doubleToRawLongBits(pair.getB().getZ()));
        ItemList items = (ItemList) PARSER.parse("{\"items\": [{\"price\": 1}, {\"id\": \"-0\", \"price\": -0.0}]}",
                ItemList.getDefaultInstance());
        assertEquals(NEG, Double.doubleToRawLongBits(items.getItems(1).getPrice()));
        assertEquals(0L, items.getItems(1).getId(), "an int64 -0 is 0");
    }
}
