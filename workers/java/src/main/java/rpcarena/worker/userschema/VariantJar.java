package rpcarena.worker.userschema;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The variant's jar: every entry of the base jar (its manifest first, so {@code java -jar} runs it
 * as it runs the base), then the user's compiled classes and the registry. Written beside
 * {@code out} and renamed, so a failed build leaves no jar that looks whole.
 */
final class VariantJar {
    private VariantJar() {}

    static void write(Path base, Path classes, Properties registry, Path out) throws IOException {
        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
        Set<String> names = new HashSet<>();
        try (ZipFile jar = new ZipFile(base.toFile());
             ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(tmp))) {
            for (ZipEntry entry : jar.stream().toList()) {
                names.add(entry.getName());
                zip.putNextEntry(new ZipEntry(entry.getName()));
                try (InputStream in = jar.getInputStream(entry)) {
                    in.transferTo(zip);
                }
            }
            addClasses(zip, classes, names);
            add(zip, UserMethod.REGISTRY, names);
            registry.store(zip, "the user's methods: request class, reply class, gRPC method type");
        }
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void addClasses(ZipOutputStream zip, Path classes, Set<String> names) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
            add(zip, classes.relativize(file).toString().replace('\\', '/'), names);
            Files.copy(file, (OutputStream) zip);
        }
    }

    /** A new entry; a name the worker has already (a user's class named as one of its own) is refused. */
    private static void add(ZipOutputStream zip, String name, Set<String> names) throws IOException {
        if (!names.add(name)) {
            throw new IOException("the schema's generated " + name + " clashes with the worker's own:"
                    + " set another java_package in the .proto");
        }
        zip.putNextEntry(new ZipEntry(name));
    }
}
