package dev.kafko.spring.autoconfigure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;

/**
 * Loads and links, on Spring Boot's background pre-initialization thread, the classes that a start-up with
 * kafko and a record's first trip to a listener go on to need (kafko's own, and the JDK's and Spring's that
 * only kafko uses), in the order they are first needed, while the main thread is still preparing the context:
 * the main thread then finds them ready instead of reading, parsing and verifying each from its jar, and the
 * work runs on the other core. Listed in {@code META-INF/spring.factories}; Boot runs it once per JVM, and not
 * in a native image, on a single CPU or when {@code spring.backgroundpreinitializer.ignore} is set. The system
 * property {@value #IGNORE_PROPERTY} switches off this one alone (an application that has kafko on its class
 * path and does not use it).
 *
 * <p>None of these classes is initialized here: two threads that initialize classes whose static initializers
 * reach each other, in opposite orders, wait for each other for ever; static initializers run on the threads that
 * use the classes, as without this. A name that does not load (an optional library that is absent, a JDK class
 * of another platform) is skipped. The list is {@value #CLASSES}; {@code StartupClassListTest} checks it
 * against what a start-up loads and writes it again. Then a few JDK facilities the log's open and first record
 * use are initialized ({@link #initializeJdk}): their static initializers reach only the JDK's own classes, as
 * those Boot's own pre-initializer runs on this thread do.
 *
 * <p>A lambda's class is spun by the JVM at its first use and cannot be listed: the code that runs at start-up
 * and on a record's first trip to a listener uses named classes and plain loops instead.
 */
final class KafkoBackgroundPreinitializer implements BackgroundPreinitializer {

    /** The system property that, when {@code true}, switches this pre-initializer off. */
    static final String IGNORE_PROPERTY = "kafko.backgroundpreinitializer.ignore";

    /** The classes to load, one binary name per line, in the order a start-up first loads them; {@code #} comments. */
    static final String CLASSES = "META-INF/kafko/startup-classes";

    /** JDK classes whose initialization {@link #initializeJdk} starts by name (no public call does it alone). */
    private static final List<String> JDK_INITIALIZED = List.of("sun.nio.ch.FileChannelImpl",
            "jdk.internal.misc.ExtendedMapMode", "java.util.concurrent.CompletableFuture");

    private final ClassLoader loader;
    private final String resource;
    private final boolean ignored;

    KafkoBackgroundPreinitializer() {
        this(KafkoBackgroundPreinitializer.class.getClassLoader(), CLASSES, Boolean.getBoolean(IGNORE_PROPERTY));
    }

    KafkoBackgroundPreinitializer(ClassLoader loader, String resource, boolean ignored) {
        this.loader = loader;
        this.resource = resource;
        this.ignored = ignored;
    }

    @Override
    public void preinitialize() throws IOException {
        if (ignored) {
            return;
        }
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                return;
            }
            for (String name : names(in)) {
                loadAndLink(name);
            }
        }
        initializeJdk();
    }

    /**
     * Initializes what the log's open and first record would otherwise initialize on the main thread: the
     * platform's logger finder (a service look-up over the class path), CRC-32C's tables, the native part of
     * file channels and their mapping modes, the byte-array views of the frame format and
     * {@code CompletableFuture}. Each is best effort: one that fails is left to the thread that needs it.
     */
    static void initializeJdk() {
        try {
            System.LoggerFinder.getLoggerFinder();
            new CRC32C().update(0);
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
        } catch (RuntimeException | LinkageError e) {
            // left to the main thread
        }
        for (String name : JDK_INITIALIZED) {
            try {
                Class.forName(name, true, null);
            } catch (ClassNotFoundException | LinkageError | SecurityException e) {
                // another JDK: left to the main thread
            }
        }
    }

    /** The class names of a list: one per line, blank lines and {@code #} comments left out. */
    static List<String> names(InputStream in) throws IOException {
        List<String> names = new ArrayList<>();
        BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            String name = line.strip();
            if (!name.isEmpty() && name.charAt(0) != '#') {
                names.add(name);
            }
        }
        return names;
    }

    private void loadAndLink(String name) {
        try {
            // asking for the constructors links the class (verifies its code) without initializing it
            Class.forName(name, false, loader).getDeclaredConstructors();
        } catch (ClassNotFoundException | LinkageError | SecurityException e) {
            // not on this class path or this platform: the start-up that needs it loads it, or fails, as without this
        }
    }
}
