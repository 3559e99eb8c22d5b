package dev.kafko.spring.autoconfigure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
 * <p>No class is initialized here: two threads that initialize classes whose static initializers reach each
 * other, in opposite orders, wait for each other for ever; static initializers run on the threads that use
 * the classes, as without this. A name that does not load (an optional library that is absent, a JDK class
 * of another platform) is skipped. The list is {@value #CLASSES}; {@code StartupClassListTest} checks it
 * against what a start-up loads and writes it again.
 */
final class KafkoBackgroundPreinitializer implements BackgroundPreinitializer {

    /** The system property that, when {@code true}, switches this pre-initializer off. */
    static final String IGNORE_PROPERTY = "kafko.backgroundpreinitializer.ignore";

    /** The classes to load, one binary name per line, in the order a start-up first loads them; {@code #} comments. */
    static final String CLASSES = "META-INF/kafko/startup-classes";

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
