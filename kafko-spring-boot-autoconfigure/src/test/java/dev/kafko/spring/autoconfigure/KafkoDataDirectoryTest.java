package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoStorageException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.atomic.AtomicBoolean;
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
        Path abandoned = Files.createDirectories(tmp.resolve("kafko-" + deadPid + "-abc123.ephemeral").resolve("orders").resolve("0"));
        Files.writeString(abandoned.resolve("00000000000000000000.log"), "records");
        Path live = Files.createDirectory(tmp.resolve("kafko-" + ownPid + "-def456.ephemeral"));
        Path userData = Files.createDirectory(tmp.resolve("kafko-data"));
        // an application's own data directory whose name looks like an old-style ephemeral one
        Path ordersData = Files.createDirectory(tmp.resolve("kafko-2024-orders"));
        Path aFile = Files.writeString(tmp.resolve("kafko-" + deadPid + "-file.ephemeral"), "not a directory");

        KafkoDataDirectory.deleteAbandoned(tmp, me, p -> { });

        assertThat(tmp.resolve("kafko-" + deadPid + "-abc123.ephemeral")).doesNotExist();
        assertThat(live).isDirectory();
        assertThat(userData).isDirectory();
        assertThat(ordersData).isDirectory();
        assertThat(aFile).isRegularFile();
    }

    /** A JVM lists the temporary directory for abandoned ones once, at its first ephemeral directory. */
    @Test
    void abandonedDirectoriesAreLookedForOnceAJvm() throws Exception {
        AtomicBoolean swept = new AtomicBoolean();
        Path created = Files.createDirectory(tmp.resolve("kafko-" + ProcessHandle.current().pid() + "-new1.ephemeral"));
        Path first = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-first.ephemeral"));

        assertThat(KafkoDataDirectory.sweepOnce(swept, tmp, created)).isTrue();
        assertThat(first).doesNotExist();

        Path second = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-second.ephemeral"));
        assertThat(KafkoDataDirectory.sweepOnce(swept, tmp, created)).isFalse();
        assertThat(second).isDirectory(); // the next JVM's first ephemeral directory deletes it
        assertThat(created).isDirectory();
    }

    /** A FIFO in the lock file's place would block the look (and the start-up) for ever on its open. */
    @Test
    void aDirectoryWhoseLockIsAFifoIsLeftAloneAndTheLookEnds() throws Exception {
        Path odd = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-fifo.ephemeral"));
        Path fifo = odd.resolve(".lock");
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort("no mkfifo: " + e);
            return;
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo.waitFor() == 0
                && Files.exists(fifo, java.nio.file.LinkOption.NOFOLLOW_LINKS), "mkfifo");
        Thread look = new Thread(() -> KafkoDataDirectory.deleteAbandoned(tmp, me, p -> { }), "fifo-look");
        look.setDaemon(true);
        look.start();
        look.join(10_000);
        boolean ended = !look.isAlive();
        if (!ended) {
            try (var reader = Files.newInputStream(fifo)) { // let the blocked open go
                look.join(10_000);
            }
        }
        assertThat(ended).as("the look ended, not blocked opening the FIFO").isTrue();
        assertThat(odd).as("in doubt, it stays").isDirectory();
    }

    @Test
    void anAbandonedLookingDirectoryWhoseLockAnotherProcessHoldsIsLeftAlone() throws Exception {
        // a process in another pid namespace (a container sharing the temporary directory) whose pid this
        // process cannot see, or one whose pid was taken for a dead one's
        Path live = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-live.ephemeral"));
        Path lock = Files.createFile(live.resolve(".lock"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                LockHolder.class.getName(), lock.toString()).redirectErrorStream(true).start();
        try {
            assertThat(new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))
                    .readLine()).isEqualTo("locked");
            KafkoDataDirectory.deleteAbandoned(tmp, me, p -> { });
            assertThat(live).isDirectory();
        } finally {
            holder.destroy();
            holder.waitFor();
        }
        KafkoDataDirectory.deleteAbandoned(tmp, me, p -> { });
        assertThat(live).as("deleted once nobody holds its lock").doesNotExist();
    }

    /** Holds the lock of the file it is given until it is killed. */
    public static final class LockHolder {
        public static void main(String[] args) throws Exception {
            try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE);
                    FileLock held = ch.lock()) {
                System.out.println("locked");
                System.out.flush();
                Thread.sleep(60_000);
            }
        }
    }

    @Test
    void anAbandonedDirectoryOfAnotherUserIsLeftAlone() throws Exception {
        Path planted = Files.createDirectories(tmp.resolve("kafko-" + deadPid + "-x1.ephemeral").resolve("d"));
        UserPrincipal someoneElse = () -> "someone-else";

        KafkoDataDirectory.deleteAbandoned(tmp, someoneElse, p -> { });

        assertThat(planted).isDirectory();
    }

    @Test
    void aLinkInAnAbandonedDirectoryIsUnlinkedNotFollowed() throws Exception {
        Path victim = victim("static");
        Path abandoned = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-x2.ephemeral"));
        Files.createSymbolicLink(abandoned.resolve("d"), victim);

        KafkoDataDirectory.deleteAbandoned(tmp, me, p -> { });

        assertThat(abandoned).doesNotExist();
        assertThat(victim.resolve("precious").resolve("deep")).hasContent("keep me");
    }

    @Test
    void aDirectorySwappedForALinkWhileTheTreeIsDeletedIsNotEntered() throws Exception {
        Path victim = victim("raced");
        Path abandoned = Files.createDirectory(tmp.resolve("kafko-" + deadPid + "-x3.ephemeral"));
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
        assertThat(dir.path().getFileName().toString()).startsWith("kafko-" + ProcessHandle.current().pid() + "-")
                .endsWith(".ephemeral");
        Files.writeString(dir.path().resolve("x"), "x");
        dir.destroy();
        assertThat(dir.path()).doesNotExist();
    }

    @Test
    void aTemporaryDirectoryThatCannotHoldOneFailsWithAKafkoExceptionNamingTheProperty() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("file"), "x");
        String before = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", notADirectory.toString());
        try {
            assertThatThrownBy(KafkoDataDirectory::ephemeral).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("cannot create a temporary kafko data directory")
                    .hasMessageContaining("java.io.tmpdir, which must be a writable directory");
        } finally {
            System.setProperty("java.io.tmpdir", before);
        }
    }

    private Path victim(String name) throws IOException {
        Path victim = Files.createDirectories(tmp.resolve("victim-" + name).resolve("precious"));
        Files.writeString(victim.resolve("deep"), "keep me");
        return victim.getParent();
    }
}
