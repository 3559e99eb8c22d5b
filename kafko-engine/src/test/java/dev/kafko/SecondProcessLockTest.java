package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.io.FileNames;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecondProcessLockTest {

    @TempDir
    Path dir;

    @Test
    void secondJvmFailsFastWhileTheDirectoryIsOpenEvenAfterThisJvmDroppedItsOsLock() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            assertThat(probe()).startsWith("3 ALREADY_OPEN").contains(k.dataDir().toString());
            // closing any other channel of the lock file drops this process's fcntl lock ...
            try (FileChannel other = FileChannel.open(k.dataDir().resolve(FileNames.LOCK_FILE), StandardOpenOption.READ)) {
                assertThat(other.size()).isPositive();
            }
            // ... and the owner record still keeps the second JVM out
            assertThat(probe()).startsWith("3 ALREADY_OPEN").contains("pid " + ProcessHandle.current().pid());
        }
        assertThat(probe()).startsWith("0 OPENED");
    }

    /** Runs {@link LockProbe} in a new JVM; returns "exit-code first-line-of-output". */
    private String probe() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LockProbe.class.getName(),
                dir.toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("probe JVM ended").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String firstLine = out.lines().filter(l -> !l.startsWith("WARNING")).findFirst().orElse("");
        return p.exitValue() + " " + firstLine + (p.exitValue() == 4 ? out : "");
    }
}
