package rpcarena.worker.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The "tool" of a result: which library, which version, on which runtime. */
public record Tool(String name, String version, String runtime) {
    private static final Properties VERSIONS = load();

    /** A tool whose version is the Maven property of {@code library} (see versions.properties). */
    public static Tool of(String name, String library) {
        return new Tool(name, VERSIONS.getProperty(library, "unknown"), "java" + Runtime.version());
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = Tool.class.getResourceAsStream("/rpcarena/worker/versions.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }
}
