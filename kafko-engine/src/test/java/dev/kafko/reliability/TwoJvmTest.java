package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.AlreadyOpenException;
import dev.kafko.Kafko;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs on one directory: while a child JVM ({@link LockHolder}) holds it, opening it here fails
 * fast with {@link AlreadyOpenException}, also after the child opened and closed another channel
 * of the lock file; once the child closes, or dies by SIGKILL, the directory opens here.
 */
class TwoJvmTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"plain", "touch"})
    void secondJvmFailsFastWhileTheFirstHoldsTheDirectory(String mode) throws Exception {
        Process child = start(mode);
        try {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> Kafko.open(dir)).isInstanceOf(AlreadyOpenException.class)
                    .hasMessageContaining(dir.toRealPath().toString());
            long millis = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("two JVMs (%s): refused in %d ms%n", mode, millis);
            assertThat(millis).as("fails fast, without waiting for the lock").isLessThan(5_000);
        } finally {
            child.getOutputStream().close();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(child.exitValue()).isZero();
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).isEmpty();
        }
    }

    @Test
    void directoryOpensAfterTheHolderWasKilled() throws Exception {
        Process child = start("touch");
        child.destroyForcibly();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.dataDir()).isEqualTo(dir.toRealPath());
        }
    }

    private Process start(String mode) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(),
                dir.toString(), mode).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
        String line = out.readLine();
        assertThat(line).as("the child opened the directory").isEqualTo("READY");
        return p;
    }
}
