package rpcarena.worker.userschema;

import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.MethodDescriptor.MethodType;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import rpcarena.worker.core.SpecError;

/**
 * A user's method ("pkg.Service/Method" of {@code rpcarena run --proto}) with the message classes
 * protoc generated for it. A variant of this worker built with the schema ({@link SchemaGen})
 * carries the registry {@value #REGISTRY}: method -> generated request and reply classes, written
 * from the compiled classes' own descriptors, so no class name is guessed and no DynamicMessage is
 * used. The prototypes are found once, at start, never on a call's path.
 */
public record UserMethod(String service, String name, Message request, Message reply, MethodType type) {
    /** The registry's path inside the variant's jar. */
    public static final String REGISTRY = "rpcarena/worker/userschema/methods.properties";
    static final String NOT_BUILT = "this worker was not built with the schema: rpcarena builds a variant of the"
            + " Java worker per schema (worker.json schema_build)";

    /** "pkg.Service/Method", as clients name it (grpc-java's full method name). */
    public String key() {
        return service + "/" + name;
    }

    public boolean streaming() {
        return type == MethodType.BIDI_STREAMING;
    }

    /**
     * Proto JSON of this method's messages, as every worker reads and writes a user's: field
     * names as the .proto has them, enums as numbers, an Any's message found among the types of the
     * files its request and reply reach (JsonFormat's TypeRegistry: those files and their imports),
     * a key the message has no field for refused, never dropped into a smaller message, and a
     * negative zero kept negative ({@link ProtoJsonParser}).
     */
    public ProtoJsonParser jsonParser() {
        return new ProtoJsonParser(JsonFormat.parser().usingTypeRegistry(types()));
    }

    /** The printer of {@link #jsonParser}'s JSON. */
    public JsonFormat.Printer jsonPrinter() {
        return JsonFormat.printer().usingTypeRegistry(types()).preservingProtoFieldNames().printingEnumsAsInts()
                .omittingInsignificantWhitespace();
    }

    private JsonFormat.TypeRegistry types() {
        return JsonFormat.TypeRegistry.newBuilder().add(request.getDescriptorForType()).add(reply.getDescriptorForType())
                .build();
    }

    /** The user's method by its key, from this build's registry. */
    public static UserMethod lookup(String key) throws SpecError {
        int slash = key.indexOf('/');
        if (slash <= 0 || slash == key.length() - 1) {
            throw new SpecError("bad user method '" + key + "': give package.Service/Method");
        }
        String entry = registry().getProperty(key);
        if (entry == null) {
            throw new SpecError("no method " + key + ": " + NOT_BUILT);
        }
        String[] parts = entry.split(" ");
        MethodType type = MethodType.valueOf(parts[2]);
        return new UserMethod(key.substring(0, slash), key.substring(slash + 1), prototype(parts[0]),
                prototype(parts[1]), type);
    }

    private static Properties registry() throws SpecError {
        Properties registry = new Properties();
        try (InputStream in = UserMethod.class.getClassLoader().getResourceAsStream(REGISTRY)) {
            if (in != null) {
                registry.load(in);
            }
        } catch (IOException e) {
            throw new SpecError("cannot read " + REGISTRY + ": " + e.getMessage());
        }
        return registry;
    }

    /** The generated class's default instance: what its parser and builders come from. */
    private static Message prototype(String className) throws SpecError {
        try {
            Class<?> type = Class.forName(className, true, UserMethod.class.getClassLoader());
            return (Message) type.getMethod("getDefaultInstance").invoke(null);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new SpecError("the registry names " + className + ", which is no generated message here: " + NOT_BUILT);
        }
    }
}
