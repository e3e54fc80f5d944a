package rpcarena.worker.javaser;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.InetSocketAddress;
import rpcarena.worker.core.Contender;
import rpcarena.worker.core.RunningServer;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.core.Tool;
import rpcarena.worker.core.Workload;
import rpcarena.worker.http.BodyCodec;
import rpcarena.worker.http.HttpArenaServer;
import rpcarena.worker.http.HttpWorkload;
import rpcarena.worker.semantics.Semantics;

/** HTTP + Java object serialization of Serializable classes: the Infobip seed's "HTTP/Java". */
public final class HttpJavaSer implements Contender {
    static final String PREFIX = "/arena-ser/";

    /**
     * Only the arena's own classes (and their String and array fields) may be deserialized, and no
     * more of them than the contract's cap on any count a peer announces: an array is allocated at
     * the length its header claims, before its elements are read.
     */
    private static final ObjectInputFilter ARENA_ONLY = ObjectInputFilter.Config.createFilter(
            "maxdepth=16;maxarray=" + Semantics.MAX_COUNT + ";maxrefs=" + 4 * Semantics.MAX_COUNT
                    + ";maxbytes=" + HttpArenaServer.MAX_BODY + ";rpcarena.pojo.*;java.lang.String;!*");

    /**
     * {@link #ARENA_ONLY}, and no array longer than the body's bytes: each element takes one byte of
     * the stream at least, so a 29-byte body claiming 2^31 ints is refused before any allocation.
     */
    private static ObjectInputFilter filterFor(byte[] body) {
        return info -> info.arrayLength() > body.length ? ObjectInputFilter.Status.REJECTED : ARENA_ONLY.checkInput(info);
    }

    public static final BodyCodec JAVA_SERIALIZATION = new BodyCodec() {
        @Override
        public String contentType() {
            return "application/x-java-serialized-object";
        }

        @Override
        public byte[] encode(Object message) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(message);
            }
            return bytes.toByteArray();
        }

        @Override
        public Object decode(byte[] body, Class<?> type) throws IOException {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(body))) {
                in.setObjectInputFilter(filterFor(body));
                Object message = in.readObject();
                if (!type.isInstance(message)) {
                    throw new InvalidClassException(type.getName(), "body holds another class");
                }
                return message;
            } catch (ClassNotFoundException e) {
                throw new InvalidClassException(e.getMessage());
            }
        }
    };

    @Override
    public String id() {
        return "http-javaser";
    }

    @Override
    public String protocol() {
        return "http-javaser";
    }

    @Override
    public String description() {
        return "JDK HttpServer + java.net.http.HttpClient (HTTP/1.1), ObjectOutputStream/ObjectInputStream of Serializable classes";
    }

    @Override
    public Tool tool() {
        return new Tool("java-serialization", Runtime.version().toString(), "java" + Runtime.version());
    }

    @Override
    public RunningServer serve(InetSocketAddress address) throws IOException {
        return new HttpArenaServer(address, PREFIX, JAVA_SERIALIZATION);
    }

    @Override
    public Workload workload(Spec spec) throws SpecError {
        return new HttpWorkload(spec, PREFIX, JAVA_SERIALIZATION);
    }
}
