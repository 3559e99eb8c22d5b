package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.test.KafkoTestUtils;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Claims of the README's "Ahead-of-time processing" that no other test checks: what a class-data sharing or AOT-cache
 * training run ({@code -Dspring.context.exit=onRefresh}) does with the log, each in a JVM of its own.
 */
class ReadmeClaimsAheadOfTimeTest {

    private static final long CHILD_SECONDS = 120;

    /**
     * "creates the beans, so it opens {@code kafko.data-dir} and creates the declared topics there, then halts the JVM
     * before any listener starts: nothing is closed, which the log survives as it survives a crash." A listener of a
     * topic holding a record neither receives it nor commits, and the declared topic is there for the next open.
     */
    @Test
    void aTrainingRunCreatesTheDeclaredTopicsInTheDataDirectoryAndHaltsBeforeAnyListenerStarts(@TempDir Path tmp)
            throws Exception {
        Path data = tmp.resolve("data");
        try (Kafko kafko = Kafko.open(data)) {
            kafko.createTopic("waiting");
            kafko.producer("waiting").send(null, "sent before".getBytes(StandardCharsets.UTF_8)).join();
        }
        Path marker = tmp.resolve("received");

        Result training = run(tmp, List.of("-Dspring.context.exit=onRefresh"), "--kafko.data-dir=" + data,
                "--marker=" + marker);

        assertThat(training.exit()).as(training.output()).isZero();
        assertThat(training.output()).doesNotContain("ran to its end");
        assertThat(marker).as("no listener started").doesNotExist();
        try (Kafko kafko = Kafko.open(data)) {
            assertThat(kafko.topic("trained")).as("the declared topic").hasValueSatisfying(
                    topic -> assertThat(topic.partitionCount()).isEqualTo(3));
            assertThat(kafko.groupInfo("waiting", "trained-listener").committed()).isEmpty();
        }

        // the same application run to its end: its listener gets the record and commits it
        Result ordinary = run(tmp, List.of(), "--kafko.data-dir=" + data, "--marker=" + marker, "--wait");
        assertThat(ordinary.exit()).as(ordinary.output()).isZero();
        assertThat(ordinary.output()).contains("ran to its end");
        assertThat(Files.readString(marker)).isEqualTo("sent before\n");
        try (Kafko kafko = Kafko.open(data)) {
            assertThat(kafko.groupInfo("waiting", "trained-listener").committed()).containsEntry(0, 1L);
        }
    }

    /**
     * "Run it with {@code --kafko.ephemeral=true} ...; the ephemeral directory it leaves behind is deleted by the first
     * ephemeral context of a later JVM."
     */
    @Test
    void theEphemeralDirectoryATrainingRunLeavesIsDeletedByTheFirstEphemeralContextOfALaterJvm(@TempDir Path tmp)
            throws Exception {
        Path tmpdir = Files.createDirectory(tmp.resolve("tmpdir"));
        Path marker = tmp.resolve("received");

        Result training = run(tmp, List.of("-Dspring.context.exit=onRefresh", "-Djava.io.tmpdir=" + tmpdir),
                "--kafko.ephemeral=true", "--marker=" + marker);

        assertThat(training.exit()).as(training.output()).isZero();
        List<Path> left = ephemeral(tmpdir);
        assertThat(left).as("left behind by the halt").hasSize(1);
        assertThat(left.get(0).resolve("trained")).as("the declared topic, created there").isDirectory();

        Result later = run(tmp, List.of("-Djava.io.tmpdir=" + tmpdir), "--kafko.ephemeral=true", "--marker=" + marker);

        assertThat(later.exit()).as(later.output()).isZero();
        assertThat(later.output()).contains("ran to its end");
        assertThat(ephemeral(tmpdir)).as("the training run's deleted, the later one's deleted on close").isEmpty();
    }

    private static List<Path> ephemeral(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".ephemeral")).toList();
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result run(Path tmp, List<String> jvmOptions, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(jvmOptions);
        command.add(TrainedApplication.class.getName());
        command.addAll(List.of(args));
        Path output = Files.createTempFile(tmp, "child", ".out");
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!child.waitFor(CHILD_SECONDS, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor();
            throw new AssertionError("the child JVM did not end: " + Files.readString(output));
        }
        return new Result(child.exitValue(), Files.readString(output));
    }

    /** An application with a declared topic and a listener, run to its end unless a training run halts it. */
    public static final class TrainedApplication {

        public static void main(String[] args) {
            boolean await = List.of(args).contains("--wait");
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                    .web(WebApplicationType.NONE).properties("kafko.topics.trained.partitions=3").run(args)) {
                if (await) {
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(60));
                }
            }
            System.out.println("ran to its end");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(KafkoAutoConfiguration.class)
    @Import(Listener.class)
    static class App {
    }

    static class Listener {
        private final Path marker;

        Listener(@Value("${marker}") String marker) {
            this.marker = Path.of(marker);
        }

        @KafkoListener(id = "trained-listener", topics = "waiting")
        void on(String value) throws IOException {
            Files.writeString(marker, value + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }
}
