import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Build-time code generator, run by Maven (exec-maven-plugin) with the JDK's single-file
 * launcher: {@code java ArenaCodegen.java arena.proto POJO_DIR PROTO_DIR}.
 *
 * <p>From proto/arena.proto (never edited) it writes:
 * <ul>
 *   <li>POJO_DIR: plain Serializable Java classes for every message (Jackson and Java
 *   serialization use these, as the Infobip seed did), plus PojoCatalog (method -> classes);
 *   nobody hand-writes the 8192 fields of LargeData8192.</li>
 *   <li>PROTO_DIR: the schema for protoc, less the messages over 1024 fields and their rpcs.
 *   protobuf-java's SPEED code for them exceeds the JVM's 64 KB method limit ("code too large",
 *   from LargeData2048 on), and CODE_SIZE code compiles but costs ~120 ms per LargeData8192
 *   round trip (reflection per field). grpc-java serves those rpcs under the same names with a
 *   small protobuf codec of its own (see ProtoSplit), so the wire format is unchanged.</li>
 * </ul>
 */
public class ArenaCodegen {
    static final int SPEED_FIELD_LIMIT = 1024;

    public static void main(String[] args) throws IOException {
        String proto = Schema.stripComments(Files.readString(Path.of(args[0])));
        Schema schema = Schema.parse(proto);
        new PojoWriter(Path.of(args[1]), "rpcarena.pojo").write(schema);
        new ProtoSplitter(Path.of(args[2]), Path.of(args[1])).write(proto, schema);
    }
}

record Field(String type, String name, boolean repeated) {}

record Message(String name, List<Field> fields, String text) {}

record Rpc(String name, String request, String response, boolean streaming) {}

record Schema(List<Message> messages, List<Rpc> rpcs) {
    static final Pattern MESSAGE = Pattern.compile("(?m)^message (\\w+) \\{(.*?)\\}[ \\t]*\\n", Pattern.DOTALL);
    static final Pattern FIELD = Pattern.compile("(repeated )?(\\w+) (\\w+) = \\d+;");
    static final Pattern RPC = Pattern.compile("rpc (\\w+)\\((stream )?(\\w+)\\) returns \\((stream )?(\\w+)\\);");

    static Schema parse(String proto) {
        List<Message> messages = new ArrayList<>();
        Matcher m = MESSAGE.matcher(proto);
        while (m.find()) {
            messages.add(new Message(m.group(1), fields(m.group(2)), m.group()));
        }
        List<Rpc> rpcs = new ArrayList<>();
        Matcher r = RPC.matcher(proto);
        while (r.find()) {
            rpcs.add(new Rpc(r.group(1), r.group(3), r.group(5), r.group(2) != null));
        }
        return new Schema(messages, rpcs);
    }

    /** The schema without its // comments (it uses no block comments), so braces in them do not count. */
    static String stripComments(String proto) {
        return proto.replaceAll("//[^\\n]*", "");
    }

    static List<Field> fields(String body) {
        List<Field> fields = new ArrayList<>();
        Matcher f = FIELD.matcher(body);
        while (f.find()) {
            fields.add(new Field(f.group(2), f.group(3), f.group(1) != null));
        }
        return fields;
    }
}

/**
 * Writes the Java copy of arena.proto without the messages over SPEED_FIELD_LIMIT fields and
 * without their rpcs, and rpcarena.pojo.ProtoSplit naming those rpcs (rpc -> field count): grpc-java
 * carries them with its own codec (rpcarena.worker.grpc.IntFieldsMarshaller).
 */
class ProtoSplitter {
    private final Path dir;
    private final Path pojoDir;

    ProtoSplitter(Path dir, Path pojoDir) {
        this.dir = dir;
        this.pojoDir = pojoDir;
    }

    void write(String proto, Schema schema) throws IOException {
        Files.createDirectories(dir);
        String main = proto;
        StringBuilder removed = new StringBuilder();
        StringBuilder reading = new StringBuilder();
        for (Message m : schema.messages()) {
            if (m.fields().size() <= ArenaCodegen.SPEED_FIELD_LIMIT) {
                continue;
            }
            requireInt32Sequence(m);
            main = main.replace(m.text(), "");
            for (Rpc r : schema.rpcs()) {
                if (!r.request().equals(m.name()) || r.streaming()) {
                    continue;
                }
                main = main.replaceAll("(?m)^\\s*rpc " + r.name() + "\\(.*\\n", "");
                StringBuilder into = r.response().equals(m.name()) ? removed : reading;
                into.append(into.length() == 0 ? "\n" : ",\n").append("        java.util.Map.entry(\"")
                        .append(r.name()).append("\", ").append(m.fields().size()).append(")");
            }
        }
        Files.writeString(dir.resolve("arena.proto"), "// Generated from proto/arena.proto by ArenaCodegen: do not edit.\n" + main);
        Files.writeString(pojoDir.resolve("rpcarena/pojo/ProtoSplit.java"), "package rpcarena.pojo;\n\n"
                + "// Generated from proto/arena.proto by ArenaCodegen: do not edit.\n"
                + "/** Echo rpcs of messages too large for protobuf-java's generated code: rpc -> int32 fields f1..fN. */\n"
                + "public final class ProtoSplit {\n    private ProtoSplit() {}\n\n"
                + "    public static final java.util.Map<String, Integer> INT32_ECHO_RPCS = java.util.Map.ofEntries("
                + removed + ");\n\n"
                + "    /** Rpcs that read such a message and answer an Int32Msg (ChecksumLargeData*): rpc -> N. */\n"
                + "    public static final java.util.Map<String, Integer> INT32_READ_RPCS = java.util.Map.ofEntries("
                + reading + ");\n}\n");
    }

    /** The hand-made codec assumes int32 fields f1..fN numbered 1..N; stop the build otherwise. */
    static void requireInt32Sequence(Message m) {
        for (int i = 0; i < m.fields().size(); i++) {
            Field f = m.fields().get(i);
            if (!f.type().equals("int32") || f.repeated() || !f.name().equals("f" + (i + 1))) {
                throw new IllegalStateException(m.name() + " is not int32 f1..fN: teach ArenaCodegen and IntFieldsMarshaller");
            }
        }
    }
}

/** Writes one plain Java class per message, and PojoCatalog. */
class PojoWriter {
    static final int CHUNK = 256;
    private final Path dir;
    private final String pkg;

    PojoWriter(Path root, String pkg) {
        this.dir = root.resolve(pkg.replace('.', '/'));
        this.pkg = pkg;
    }

    void write(Schema schema) throws IOException {
        Files.createDirectories(dir);
        for (Message m : schema.messages()) {
            Files.writeString(dir.resolve(m.name() + ".java"), pojo(m));
        }
        Files.writeString(dir.resolve("PojoCatalog.java"), catalog(schema));
    }

    String pojo(Message m) {
        StringBuilder s = new StringBuilder();
        s.append("package ").append(pkg).append(";\n\n// Generated from proto/arena.proto by ArenaCodegen: do not edit.\n");
        s.append("@com.fasterxml.jackson.annotation.JsonAutoDetect(fieldVisibility = com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility.PUBLIC_ONLY)\n");
        s.append("public final class ").append(m.name()).append(" implements java.io.Serializable {\n");
        s.append("    private static final long serialVersionUID = 1L;\n");
        for (Field f : m.fields()) {
            s.append("    public ").append(javaType(f)).append(' ').append(f.name()).append(defaultValue(f)).append(";\n");
        }
        equalsAndHash(s, m);
        return s.append("}\n").toString();
    }

    /** equals and hashCode split in chunks: one method over 8192 fields would exceed 64 KB. */
    void equalsAndHash(StringBuilder s, Message m) {
        List<List<Field>> chunks = new ArrayList<>();
        for (int i = 0; i < m.fields().size(); i += CHUNK) {
            chunks.add(m.fields().subList(i, Math.min(m.fields().size(), i + CHUNK)));
        }
        s.append("\n    @Override public boolean equals(Object o) {\n        if (this == o) return true;\n");
        s.append("        if (!(o instanceof ").append(m.name()).append(" that)) return false;\n        return true");
        for (int c = 0; c < chunks.size(); c++) s.append(" && eq").append(c).append("(that)");
        s.append(";\n    }\n\n    @Override public int hashCode() {\n        int h = 1;\n");
        for (int c = 0; c < chunks.size(); c++) s.append("        h = 31 * h + hash").append(c).append("();\n");
        s.append("        return h;\n    }\n");
        for (int c = 0; c < chunks.size(); c++) {
            s.append("\n    private boolean eq").append(c).append('(').append(m.name()).append(" that) {\n        return true");
            for (Field f : chunks.get(c)) s.append("\n            && ").append(equality(f));
            s.append(";\n    }\n\n    private int hash").append(c).append("() {\n        int h = 1;\n");
            for (Field f : chunks.get(c)) s.append("        h = 31 * h + ").append(hash(f)).append(";\n");
            s.append("        return h;\n    }\n");
        }
    }

    static String scalar(String protoType) {
        return switch (protoType) {
            case "int32" -> "int";
            case "uint32", "int64" -> "long";  // uint32 as long keeps 4294967295 exact
            case "double" -> "double";
            case "float" -> "float";
            case "bool" -> "boolean";
            case "string" -> "String";
            default -> protoType;              // a message
        };
    }

    static String javaType(Field f) {
        return scalar(f.type()) + (f.repeated() ? "[]" : "");
    }

    static String defaultValue(Field f) {
        if (f.repeated()) return " = new " + scalar(f.type()) + "[0]";
        return scalar(f.type()).equals("String") ? " = \"\"" : "";
    }

    static String equality(Field f) {
        String n = f.name();
        if (f.repeated()) return "java.util.Arrays.equals(" + n + ", that." + n + ")";
        return switch (scalar(f.type())) {
            case "int", "long", "boolean" -> n + " == that." + n;
            case "double" -> "Double.compare(" + n + ", that." + n + ") == 0";
            case "float" -> "Float.compare(" + n + ", that." + n + ") == 0";
            default -> "java.util.Objects.equals(" + n + ", that." + n + ")";
        };
    }

    static String hash(Field f) {
        String n = f.name();
        if (f.repeated()) return "java.util.Arrays.hashCode(" + n + ")";
        return switch (scalar(f.type())) {
            case "int" -> n;
            case "long" -> "Long.hashCode(" + n + ")";
            case "boolean" -> "Boolean.hashCode(" + n + ")";
            case "double" -> "Double.hashCode(" + n + ")";
            case "float" -> "Float.hashCode(" + n + ")";
            default -> "java.util.Objects.hashCode(" + n + ")";
        };
    }

    String catalog(Schema schema) {
        StringBuilder s = new StringBuilder("package " + pkg + ";\n\n// Generated from proto/arena.proto by ArenaCodegen: do not edit.\n");
        s.append("/** The request and response class of every unary method of service arena.Arena. */\n");
        s.append("public final class PojoCatalog {\n    private PojoCatalog() {}\n\n");
        s.append("    public static final java.util.Map<String, Class<?>[]> UNARY = java.util.Map.ofEntries(");
        String sep = "\n";
        for (Rpc r : schema.rpcs()) {
            if (r.streaming()) continue;
            s.append(sep).append("        java.util.Map.entry(\"").append(r.name()).append("\", new Class<?>[] {")
                    .append(r.request()).append(".class, ").append(r.response()).append(".class})");
            sep = ",\n";
        }
        return s.append(");\n}\n").toString();
    }
}
