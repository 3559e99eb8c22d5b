package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkoDataDirectoryTest {

    @TempDir
    Path tmp;

    @Test
    void theEphemeralDirectoriesOfAProcessThatNoLongerRunsAreDeletedAndNothingElse() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        long deadPid = gone.pid();
        long ownPid = ProcessHandle.current().pid();
        Path abandoned = Files.createDirectories(tmp.resolve("kafko-" + deadPid + "-abc123").resolve("orders").resolve("0"));
        Files.writeString(abandoned.resolve("00000000000000000000.log"), "records");
        Path live = Files.createDirectory(tmp.resolve("kafko-" + ownPid + "-def456"));
        Path userData = Files.createDirectory(tmp.resolve("kafko-data"));
        Path aFile = Files.writeString(tmp.resolve("kafko-" + deadPid + "-file"), "not a directory");

        KafkoDataDirectory.deleteAbandoned(tmp);

        assertThat(tmp.resolve("kafko-" + deadPid + "-abc123")).doesNotExist();
        assertThat(live).isDirectory();
        assertThat(userData).isDirectory();
        assertThat(aFile).isRegularFile();
    }

    @Test
    void anEphemeralDirectoryIsNamedAfterItsProcessAndDeletedOnDestroy() throws Exception {
        KafkoDataDirectory dir = KafkoDataDirectory.ephemeral();
        assertThat(dir.path().getFileName().toString()).startsWith("kafko-" + ProcessHandle.current().pid() + "-");
        Files.writeString(dir.path().resolve("x"), "x");
        dir.destroy();
        assertThat(dir.path()).doesNotExist();
    }
}
