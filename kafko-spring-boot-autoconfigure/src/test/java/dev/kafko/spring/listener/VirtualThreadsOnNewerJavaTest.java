package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@link VirtualThreadsTest}'s virtual-thread case in a child JVM of Java 21 or later, when one is installed beside
 * the build's Java 17 (where that case is skipped): {@code spring.threads.virtual.enabled=true} gives the listener a
 * virtual polling thread. The JDK is {@code KAFKO_TEST_JAVA21_HOME}, else the newest under {@code /usr/lib/jvm}.
 */
class VirtualThreadsOnNewerJavaTest {

    private static final Pattern VERSION = Pattern.compile("^JAVA_VERSION=\"(\\d+)", Pattern.MULTILINE);

    @Test
    void aListenerPollsOnAVirtualThreadInAJava21Jvm(@TempDir Path dir) throws Exception {
        Optional<Path> java = newerJava();
        assumeTrue(java.isPresent(), "no Java 21 or later in KAFKO_TEST_JAVA21_HOME or /usr/lib/jvm");
        Path log = dir.resolve("child.log");
        Process child = new ProcessBuilder(List.of(java.get().toString(), "-cp", System.getProperty("java.class.path"),
                Child.class.getName())).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = child.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor();
        }
        String output = Files.readString(log);
        assertThat(ended).as(output).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("feature=").contains("threads=[vt-0:virtual=true]");
    }

    /** The {@code java} of a JDK of version 21 or later, or none. */
    static Optional<Path> newerJava() throws IOException {
        String home = System.getenv("KAFKO_TEST_JAVA21_HOME");
        if (home != null && !home.isBlank()) {
            return Optional.of(Path.of(home, "bin", "java")).filter(Files::isExecutable);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(jvms)) {
            return dirs.filter(d -> version(d) >= 21 && Files.isExecutable(d.resolve("bin/java")))
                    .max(Comparator.comparingInt(VirtualThreadsOnNewerJavaTest::version))
                    .map(d -> d.resolve("bin/java"));
        }
    }

    /** The feature version a JDK's {@code release} file names, or 0. */
    private static int version(Path jdk) {
        try {
            Matcher m = VERSION.matcher(Files.readString(jdk.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Runs in the child JVM: one record to a listener with virtual threads enabled, then prints its thread. */
    public static final class Child {

        public static void main(String[] args) {
            VirtualThreadsTest.THREADS.clear();
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                    .withBean(VirtualThreadsTest.Listener.class)
                    .withPropertyValues("kafko.ephemeral=true", "spring.threads.virtual.enabled=true")
                    .run(VirtualThreadsTest::send);
            System.out.println("feature=" + Runtime.version().feature() + " threads=" + VirtualThreadsTest.THREADS);
            System.exit(0);
        }
    }
}
