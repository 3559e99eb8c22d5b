package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkoDataDirectoryTest {

    @TempDir
    Path tmp;

    private long deadPid;
    private UserPrincipal me;

    @BeforeEach
    void aProcessThatNoLongerRuns() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        deadPid = gone.pid();
        me = Files.getOwner(tmp);
    }

    @Test
    void theEphemeralDirectoriesOfAProcessThatNoLongerRunsAreDeletedAndNothingElse() throws Exception {
        long ownPid = ProcessHandle.current().pid();
        Path abandoned = Files.createDirectories(tmp.resolve("kafko-" + deadPid + "-abc123").resolve("orders").resolve("0"));
        Files.writeString(abandoned.resolve("00000000000000000000.log"), "records");
        Path live = Files.createDirectory(tmp.resolve("kafko-" + ownPid + "-def456"));
        Path userData = Files.createDirectory(tmp.resolve("kafko-data"));
        Path aFile = Files.writeString(tmp.resolve("kafko-" + deadPid + "-file"), "not a directory");

        KafkoDataDirectory.deleteAbandoned(tmp, me, p -> { });

        assertThat(tmp.resolve("kafko-" + deadPid + "-abc123")).doesNotExist();
        assertThat(live).isDirectory();
        assertThat(userData).isDirectory();
        assertThat(aFile).isRegularFile();
    }

    @Test
    void anAbandonedDirectoryOfAnotherUserIsLeftAlone() throws Exception {
        Path planted = Files.createDirectories(tmp.resolve("kafko-" + deadPid + "-x1").resolve("d"));
        UserPrincipal someoneElse = () -> "someone-else";

        KafkoDataDirectory.deleteAbandoned(tmp, someoneElse, p -> { });

        assertThat(planted).isDirectory();
    }

    @Test
    void aLinkInAnAbandonedDirectoryIsUnlinkedNotFollowed() throws Exception {
        Path victim = victim("static");
        Path abandoned = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-x2"));
        Files.createSymbolicLink(abandoned.resolve("d"), victim);

        KafkoDataDirectory.deleteAbandoned(tmp, me, p -> { });

        assertThat(abandoned).doesNotExist();
        assertThat(victim.resolve("precious").resolve("deep")).hasContent("keep me");
    }

    @Test
    void aDirectorySwappedForALinkWhileTheTreeIsDeletedIsNotEntered() throws Exception {
        Path victim = victim("raced");
        Path abandoned = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-x3"));
        Path d = Files.createDirectories(abandoned.resolve("d").resolve("precious"));
        Files.writeString(d.resolve("deep"), "the attacker's");
        Path stash = Files.createDirectory(tmp.resolve("stash"));

        // as a local attacker would: once the walk has seen "d" as a directory, put a link to the victim there
        KafkoDataDirectory.deleteAbandoned(tmp, me, path -> {
            if (path.getFileName().toString().equals("d")) {
                try {
                    Files.move(path, stash.resolve("d"));
                    Files.createSymbolicLink(path, victim);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });

        assertThat(victim.resolve("precious").resolve("deep")).hasContent("keep me");
        assertThat(abandoned.resolve("d")).as("the link is left, never followed").isSymbolicLink();
    }

    @Test
    void anEphemeralDirectoryIsNamedAfterItsProcessAndDeletedOnDestroy() throws Exception {
        KafkoDataDirectory dir = KafkoDataDirectory.ephemeral();
        assertThat(dir.path().getFileName().toString()).startsWith("kafko-" + ProcessHandle.current().pid() + "-");
        Files.writeString(dir.path().resolve("x"), "x");
        dir.destroy();
        assertThat(dir.path()).doesNotExist();
    }

    private Path victim(String name) throws IOException {
        Path victim = Files.createDirectories(tmp.resolve("victim-" + name).resolve("precious"));
        Files.writeString(victim.resolve("deep"), "keep me");
        return victim.getParent();
    }
}
