package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.core.KafkoTemplate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The list {@link KafkoBackgroundPreinitializer} loads, against what a start-up loads: a Boot application
 * with one listener on kafko (an ephemeral log, one record sent and received) and the same application without
 * a log (no listener, {@code kafko.enabled=false}) each start in a fresh JVM with the pre-initializer off and
 * the class loads logged; the
 * classes the first loads and the second does not, in the order of their first load, are what the list should
 * hold. Every kafko class among them must be listed. The test writes that list, with its header, to
 * {@code target/startup-classes}: copy it over {@code src/main/resources/META-INF/kafko/startup-classes} when
 * this fails (the class-load logs are kept beside it, in {@code target/startup-classes-logs}).
 */
class StartupClassListTest {

    private static final String TOPIC = "startup-classes";

    /**
     * The application without a log; like {@link App}, with a meter registry, as an application with the actuator
     * has one (and kafko's meters are then part of its start-up).
     */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class Bare {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class App {

        static final CountDownLatch RECEIVED = new CountDownLatch(1);
        /** How long the member has, after the listener returned, to commit the record and record its progress. */
        static final long POST_RECORD_WORK_MILLIS = 1000;

        /** {@code true | false}: with kafko and a listener, or {@link Bare} with kafko disabled. */
        public static void main(String[] args) throws InterruptedException {
            boolean enabled = Boolean.parseBoolean(args[0]);
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(enabled ? App.class : Bare.class)
                    .web(WebApplicationType.NONE)
                    .properties("kafko.enabled=" + enabled, "kafko.ephemeral=true", "spring.main.banner-mode=off",
                            "logging.level.root=warn")
                    .run()) {
                if (enabled) {
                    context.getBean(KafkoTemplate.class).send(TOPIC, "first").join();
                    if (!RECEIVED.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the listener did not receive the record");
                    }
                    // the record's trip ends after the listener returns: its member then commits it and records
                    // its progress, on its own thread, racing this one; the marker loaded at once would land before
                    // that work in some runs and after it in others, and a lambda made there would fail this test
                    // only now and then (it landed after the marker in 5 of 5 runs without this wait). A wait that
                    // loads no class of kafko's lets that work finish first.
                    Thread.sleep(POST_RECORD_WORK_MILLIS);
                    try {
                        // its line in the class-load log ends the start-up and the first record
                        Class.forName(FirstRecordReceived.class.getName());
                    } catch (ClassNotFoundException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            System.exit(0);
        }

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Listener startupClassesListener() {
            return new Listener();
        }

        static class Listener {
            @KafkoListener(id = "startup-classes", topics = TOPIC)
            void on(String value) {
                RECEIVED.countDown();
            }
        }
    }

    /** Loaded by {@link App} once its listener has the record. */
    static final class FirstRecordReceived {
    }

    private static final Path LOGS = Path.of("target", "startup-classes-logs");

    /** The classes loaded with kafko and without it; see {@link #loadedClasses}. */
    private static List<String> with;
    private static List<String> without;

    @BeforeAll
    static void startBoth() throws Exception {
        Files.createDirectories(LOGS);
        with = loadedClasses(LOGS, true);
        without = loadedClasses(LOGS, false);
    }

    @Test
    void theListHoldsEveryKafkoClassAStartupAndAFirstRecordLoad() throws Exception {
        Set<String> without = new LinkedHashSet<>(StartupClassListTest.without);
        List<String> needed = new ArrayList<>();
        for (String name : with) {
            // kafko's own whether or not the application without a log loads them (this class path's test
            // configurations touch some): an application that does not use kafko does not have them
            if ((name.startsWith("dev.kafko.") || !without.contains(name))
                    && !name.equals(KafkoBackgroundPreinitializer.class.getName())) {
                needed.add(name);
            }
        }
        Path generated = Path.of("target", "startup-classes");
        Files.writeString(generated, header() + String.join("\n", needed) + "\n");
        Set<String> listed = new LinkedHashSet<>(listed());

        List<String> missing = needed.stream().filter(n -> n.startsWith("dev.kafko.") && !listed.contains(n)).toList();
        assertThat(missing).as("kafko classes a start-up loads that %s does not list; the list to copy over it is %s",
                KafkoBackgroundPreinitializer.CLASSES, generated.toAbsolutePath()).isEmpty();
        assertThat(needed).as("the start-up with kafko loads kafko's classes").anyMatch(n -> n.startsWith("dev.kafko."));
    }

    /**
     * kafko's code on the way to a ready context and a first record makes no lambda: the first run of each spins a
     * class on the thread that runs it (about 0.2 ms of the main thread's start-up each, cold), while a named class is
     * on the list and loaded ahead. A lambda on that path fails this; a named class in its place fixes it.
     */
    @Test
    void aStartupAndAFirstRecordRunNoLambdaOfKafkos() throws IOException {
        List<String> lambdas = new ArrayList<>();
        for (String line : Files.readAllLines(LOGS.resolve("classes-true.log"))) {
            if (line.startsWith(FirstRecordReceived.class.getName() + " ")) {
                assertThat(lambdas).as("lambdas of kafko's classes made before the first record was received").isEmpty();
                return;
            }
            if (line.startsWith("dev.kafko.") && line.contains("$$Lambda")
                    && !line.startsWith(StartupClassListTest.class.getName())) {
                lambdas.add(line.substring(0, line.indexOf("$$Lambda")));
            }
        }
        throw new AssertionError("the application did not load " + FirstRecordReceived.class.getName());
    }

    @Test
    void everyKafkoClassOfTheListLoads() throws IOException {
        List<String> missing = new ArrayList<>();
        for (String name : listed()) {
            if (name.startsWith("dev.kafko.")) {
                try {
                    Class.forName(name, false, getClass().getClassLoader());
                } catch (ClassNotFoundException e) {
                    missing.add(name);
                }
            }
        }
        assertThat(missing).as("listed in %s but not classes", KafkoBackgroundPreinitializer.CLASSES).isEmpty();
    }

    /**
     * The classes a fresh JVM running {@link App} loads, in order; left out: this module's test classes, hidden
     * classes (lambdas) and the classes the JVM generates under names of its own (proxies, reflection accessors).
     */
    private static List<String> loadedClasses(Path dir, boolean enabled) throws Exception {
        Path log = dir.resolve("classes-" + enabled + ".log");
        Path out = dir.resolve("out-" + enabled + ".log");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-D" + KafkoBackgroundPreinitializer.IGNORE_PROPERTY + "=true",
                "-Xlog:class+load=info:file=" + log + ":none",
                "-cp", System.getProperty("java.class.path"), App.class.getName(), Boolean.toString(enabled)))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the application exited: %s", read(out)).isTrue();
            assertThat(p.exitValue()).as("its exit status: %s", read(out)).isZero();
        } finally {
            p.destroyForcibly();
        }
        List<String> names = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            int end = line.indexOf(' ');
            String name = end < 0 ? line : line.substring(0, end);
            if (!line.contains("/test-classes/") && !name.isEmpty() && !name.contains("/") && !name.contains("$$Lambda") && !name.matches(".*\\$Proxy\\d+")
                    && !name.startsWith("jdk.internal.reflect.Generated")) {
                names.add(name);
            }
        }
        return names;
    }

    private static List<String> listed() throws IOException {
        try (InputStream in = StartupClassListTest.class.getClassLoader()
                .getResourceAsStream(KafkoBackgroundPreinitializer.CLASSES)) {
            assertThat(in).as(KafkoBackgroundPreinitializer.CLASSES).isNotNull();
            return KafkoBackgroundPreinitializer.names(in);
        }
    }

    private static String header() {
        return """
                # The classes a Boot start-up with kafko and a record's first trip to a listener load that the same
                # start-up without kafko does not, in the order they are first loaded. KafkoBackgroundPreinitializer
                # loads and links them on Boot's background pre-initialization thread. Written by
                # StartupClassListTest (kafko-spring-boot-autoconfigure/target/startup-classes).
                """;
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "(no output)";
    }
}
