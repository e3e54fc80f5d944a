package rpcarena.worker.userschema;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Message;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds the variant of this worker for a user's schema, as a grpc-java user builds one: protoc
 * (the base build's, matching the protobuf-java runtime) with --java_out over the descriptor set
 * rpcarena compiled, javac against this jar, and the variant jar: this jar plus the generated
 * classes and the registry of the user's methods ({@link UserMethod#REGISTRY}), written from each
 * compiled message class's own descriptor. The manifest's {@code run} then runs the variant as it
 * runs this jar. {@code java -cp BASE.jar rpcarena.worker.userschema.SchemaGen SET BASE.jar BUILD OUT}.
 */
public final class SchemaGen {
    private SchemaGen() {}

    public static void main(String[] args) {
        try {
            if (args.length != 4) {
                throw new IOException("usage: SchemaGen SET.pb BASE.jar BUILD_FOLDER OUT.jar");
            }
            run(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), Path.of(args[3]));
        } catch (IOException | InterruptedException e) {
            System.err.println("schemagen: " + e.getMessage());
            System.exit(1);
        }
    }

    static void run(Path set, Path base, Path build, Path out) throws IOException, InterruptedException {
        FileDescriptorSet files = read(set);
        Path gen = fresh(build.resolve("gen"));
        Path classes = fresh(build.resolve("classes"));
        protoc(set, gen, build, userFiles(files));
        javac(gen, base, classes);
        VariantJar.write(base, classes, registry(files, messageClasses(classes)), out);
    }

    private static FileDescriptorSet read(Path set) throws IOException {
        try (InputStream in = Files.newInputStream(set)) {
            return FileDescriptorSet.parseFrom(in);
        }
    }

    /** The set's files that are not google/protobuf's own (protobuf-java has those). */
    static List<String> userFiles(FileDescriptorSet set) throws IOException {
        List<String> names = set.getFileList().stream().map(FileDescriptorProto::getName)
                .filter(n -> !n.startsWith("google/protobuf/")).toList();
        if (names.isEmpty()) {
            throw new IOException("the descriptor set holds no file of the user's");
        }
        return names;
    }

    private static Path fresh(Path folder) throws IOException {
        if (Files.exists(folder)) {
            try (Stream<Path> walk = Files.walk(folder)) {
                for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
                    Files.delete(p);
                }
            }
        }
        return Files.createDirectories(folder);
    }

    private static void protoc(Path set, Path gen, Path build, List<String> files) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(protocExecutable(build).toString(),
                "--descriptor_set_in=" + set, "--java_out=" + gen));
        argv.addAll(files);
        Process protoc = new ProcessBuilder(argv).inheritIO().start();
        if (protoc.waitFor() != 0) {
            throw new IOException("protoc failed (exit " + protoc.exitValue() + "): " + String.join(" ", argv));
        }
    }

    /**
     * The base build's protoc (Maven keeps it without its execute bit), copied into the build
     * folder as an executable. /usr/bin/protoc may be older than the runtime in the jar, whose
     * gencode check refuses code from an older major version.
     */
    private static Path protocExecutable(Path build) throws IOException {
        Properties found = new Properties();
        try (InputStream in = SchemaGen.class.getResourceAsStream("protoc.properties")) {
            if (in == null) {
                throw new IOException("this jar has no protoc.properties: build the worker with Maven");
            }
            found.load(in);
        }
        Path source = Path.of(found.getProperty("protoc"));
        if (!Files.isRegularFile(source)) {
            throw new IOException("no protoc at " + source + ": build the base worker again (mvn package downloads it)");
        }
        Path protoc = build.resolve("protoc");
        Files.copy(source, protoc, StandardCopyOption.REPLACE_EXISTING);
        if (!protoc.toFile().setExecutable(true)) {
            throw new IOException("cannot make " + protoc + " executable");
        }
        return protoc;
    }

    private static void javac(Path gen, Path base, Path classes) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            throw new IOException("this Java has no compiler: install a JDK (apt-get install default-jdk-headless)");
        }
        List<String> argv = new ArrayList<>(List.of("--release", "17", "-nowarn", "-proc:none", "-encoding", "UTF-8",
                "-cp", base.toString(), "-d", classes.toString()));
        try (Stream<Path> walk = Files.walk(gen)) {
            walk.filter(p -> p.toString().endsWith(".java")).forEach(p -> argv.add(p.toString()));
        }
        if (compiler.run(null, System.err, System.err, argv.toArray(String[]::new)) != 0) {
            throw new IOException("javac failed on protoc's code in " + gen);
        }
    }

    /** Message full name -> its generated class, read from each compiled class's descriptor. */
    static Map<String, String> messageClasses(Path classes) throws IOException {
        Map<String, String> found = new HashMap<>();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, SchemaGen.class.getClassLoader());
             Stream<Path> walk = Files.walk(classes)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(".class", "").replace('/', '.');
                Descriptor descriptor = descriptorOf(loader, name);
                if (descriptor != null) {
                    found.put(descriptor.getFullName(), name);
                }
            }
        }
        return found;
    }

    private static Descriptor descriptorOf(ClassLoader loader, String name) throws IOException {
        try {
            Class<?> type = Class.forName(name, false, loader);
            if (!Message.class.isAssignableFrom(type) || Modifier.isAbstract(type.getModifiers())) {
                return null;
            }
            return (Descriptor) type.getMethod("getDescriptor").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IOException("cannot load the generated " + name + ": " + e);
        }
    }

    /** Every method of the user's services: "pkg.Service/Method" -> "RequestClass ReplyClass TYPE". */
    static Properties registry(FileDescriptorSet set, Map<String, String> messages) throws IOException {
        Map<String, String> entries = new TreeMap<>();
        for (FileDescriptorProto file : set.getFileList()) {
            String prefix = file.getPackage().isEmpty() ? "" : file.getPackage() + ".";
            for (ServiceDescriptorProto service : file.getServiceList()) {
                for (MethodDescriptorProto m : service.getMethodList()) {
                    entries.put(prefix + service.getName() + "/" + m.getName(), classOf(messages, m.getInputType()) + " "
                            + classOf(messages, m.getOutputType()) + " " + type(m));
                }
            }
        }
        Properties registry = new Properties();
        registry.putAll(entries);
        return registry;
    }

    private static String classOf(Map<String, String> messages, String typeName) throws IOException {
        String fullName = typeName.startsWith(".") ? typeName.substring(1) : typeName;
        String found = messages.get(fullName);
        if (found == null && fullName.startsWith("google.protobuf.")) {
            found = wellKnown(fullName);
        }
        if (found == null) {
            throw new IOException("protoc generated no class for message " + fullName);
        }
        return found;
    }

    /** A well-known type is protobuf-java's own class (java_package com.google.protobuf), checked by its descriptor. */
    private static String wellKnown(String fullName) {
        String name = "com.google.protobuf." + fullName.substring("google.protobuf.".length());
        try {
            Descriptor d = descriptorOf(SchemaGen.class.getClassLoader(), name);
            return d != null && d.getFullName().equals(fullName) ? name : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String type(MethodDescriptorProto m) {
        if (m.getClientStreaming() && m.getServerStreaming()) {
            return "BIDI_STREAMING";
        }
        if (m.getClientStreaming()) {
            return "CLIENT_STREAMING";
        }
        return m.getServerStreaming() ? "SERVER_STREAMING" : "UNARY";
    }
}
