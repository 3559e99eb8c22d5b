package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A test's child JVM on the test's class path, run to its end (a minute at most), its output kept in a file. */
final class ChildJvm {

    private ChildJvm() {
    }

    /**
     * Runs {@code main} with {@code jvmOptions} and {@code args}, its output written to {@code out}; asserts that it
     * exited with 0 within a minute and returns what it printed.
     */
    static String run(Path out, List<String> jvmOptions, Class<?> main, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child exited").isTrue();
        } finally {
            child.destroyForcibly().waitFor();
        }
        String log = Files.readString(out);
        assertThat(child.exitValue()).as(log).isZero();
        return log;
    }
}
