package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.AlreadyOpenException;
import dev.kafko.KafkoStorageException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryLockTest {

    @TempDir
    Path dir;

    @Test
    void secondAcquireInThisJvmFailsAndReleaseAllowsItAgain() throws Exception {
        Path d = dir.toRealPath();
        DirectoryLock first = DirectoryLock.acquire(d, FileIo.SYSTEM);
        assertThatThrownBy(() -> DirectoryLock.acquire(d, FileIo.SYSTEM))
                .isInstanceOf(AlreadyOpenException.class)
                .hasMessageContaining(d.toString());
        first.release();
        DirectoryLock again = DirectoryLock.acquire(d, FileIo.SYSTEM);
        again.release();
    }

    @Test
    void recordsThisProcessWhileHeldAndClearsItOnRelease() throws Exception {
        Path d = dir.toRealPath();
        DirectoryLock lock = DirectoryLock.acquire(d, FileIo.SYSTEM);
        String record = Files.readString(d.resolve(FileNames.LOCK_FILE), StandardCharsets.US_ASCII).trim();
        assertThat(record).startsWith(ProcessHandle.current().pid() + " ");
        lock.release();
        assertThat(Files.readString(d.resolve(FileNames.LOCK_FILE))).isEmpty();
    }

    @Test
    void aLockFileThatIsALinkIsRefusedAndWhatItNamesIsLeftAsItWas() throws Exception {
        Path d = Files.createDirectory(dir.resolve("data")).toRealPath();
        Path elsewhere = Files.writeString(dir.resolve("app.conf"), "someone else's settings");
        Files.createSymbolicLink(d.resolve(FileNames.LOCK_FILE), elsewhere);
        assertThatThrownBy(() -> DirectoryLock.acquire(d, FileIo.SYSTEM))
                .isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining(d.resolve(FileNames.LOCK_FILE).toString())
                .hasMessageContaining("is a symbolic link, which kafko does not follow");
        assertThat(elsewhere).hasContent("someone else's settings");
        // refused, not held: the directory opens once the link is gone
        Files.delete(d.resolve(FileNames.LOCK_FILE));
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }

    @Test
    void staleRecordOfThisProcessDoesNotBlock() throws Exception {
        Path d = dir.toRealPath();
        long start = ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
        Files.writeString(d.resolve(FileNames.LOCK_FILE), ProcessHandle.current().pid() + " " + start + "\n");
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }

    @Test
    void recordOfALiveOtherProcessBlocksEvenWithoutItsOsLock() throws Exception {
        Path d = dir.toRealPath();
        ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
        long start = parent.info().startInstant().orElseThrow().toEpochMilli();
        Files.writeString(d.resolve(FileNames.LOCK_FILE), parent.pid() + " " + start + "\n");
        assertThatThrownBy(() -> DirectoryLock.acquire(d, FileIo.SYSTEM))
                .isInstanceOf(AlreadyOpenException.class)
                .hasMessageContaining("pid " + parent.pid());
        // the failed attempt left nothing behind
        Files.writeString(d.resolve(FileNames.LOCK_FILE), "");
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }

    @Test
    void aRecordCopiedFromAnotherDirectoryIsNotThisDirectorysOwner() throws Exception {
        Path d = dir.toRealPath();
        ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
        long start = parent.info().startInstant().orElseThrow().toEpochMilli();
        Path lockFile = d.resolve(FileNames.LOCK_FILE);
        long inode = (Long) Files.getAttribute(lockFileCreated(lockFile), "unix:ino");
        // the live owner's record, as a copy of its directory carries it: the original's inode
        Files.writeString(lockFile, parent.pid() + " " + start + " " + (inode + 1) + "\n");
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
        // the same record naming this lock file still blocks
        Files.writeString(lockFile, parent.pid() + " " + start + " " + inode + "\n");
        assertThatThrownBy(() -> DirectoryLock.acquire(d, FileIo.SYSTEM))
                .isInstanceOf(AlreadyOpenException.class).hasMessageContaining("pid " + parent.pid());
    }

    @Test
    void aRecordCopiedFromAnotherFileSystemWithTheSameInodeIsNotThisDirectorysOwner() throws Exception {
        Path d = dir.toRealPath();
        ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
        long start = parent.info().startInstant().orElseThrow().toEpochMilli();
        Path lockFile = lockFileCreated(d.resolve(FileNames.LOCK_FILE));
        long inode = (Long) Files.getAttribute(lockFile, "unix:ino");
        long device = (Long) Files.getAttribute(lockFile, "unix:dev");
        // a copy onto a fresh file system often gets the original's inode number; its device differs
        Files.writeString(lockFile, parent.pid() + " " + start + " " + inode + " " + (device + 1) + "\n");
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
        Files.writeString(lockFile, parent.pid() + " " + start + " " + inode + " " + device + "\n");
        assertThatThrownBy(() -> DirectoryLock.acquire(d, FileIo.SYSTEM))
                .isInstanceOf(AlreadyOpenException.class).hasMessageContaining("pid " + parent.pid());
    }

    @Test
    void theRecordNamesTheLockFilesInodeAndDevice() throws Exception {
        Path d = dir.toRealPath();
        DirectoryLock lock = DirectoryLock.acquire(d, FileIo.SYSTEM);
        Path lockFile = d.resolve(FileNames.LOCK_FILE);
        String[] record = Files.readString(lockFile, StandardCharsets.US_ASCII).trim().split(" ");
        assertThat(record).hasSize(4);
        assertThat(Long.parseLong(record[2])).isEqualTo(Files.getAttribute(lockFile, "unix:ino"));
        assertThat(Long.parseLong(record[3])).isEqualTo(Files.getAttribute(lockFile, "unix:dev"));
        lock.release();
    }

    @Test
    void theSameDirectoryThroughAHardLinkedLockFileInThisJvmIsSaidToBeOpenHere() throws Exception {
        Path a = Files.createDirectories(dir.resolve("a")).toRealPath();
        Path b = Files.createDirectories(dir.resolve("b")).toRealPath();
        DirectoryLock lock = DirectoryLock.acquire(a, FileIo.SYSTEM);
        try {
            // a bind mount shows the directory under a second real path; a hard link of the lock file does too
            Files.createLink(b.resolve(FileNames.LOCK_FILE), a.resolve(FileNames.LOCK_FILE));
            assertThatThrownBy(() -> DirectoryLock.acquire(b, FileIo.SYSTEM))
                    .isInstanceOf(AlreadyOpenException.class)
                    .hasMessageContaining("is already open in this JVM, through another path");
        } finally {
            lock.release();
        }
    }

    private static Path lockFileCreated(Path lockFile) throws Exception {
        if (!Files.exists(lockFile)) {
            Files.createFile(lockFile);
        }
        return lockFile;
    }

    @Test
    void recordOfAProcessWithAnotherStartInstantIsAReusedPidAndIgnored() throws Exception {
        Path d = dir.toRealPath();
        ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
        long start = parent.info().startInstant().orElseThrow().toEpochMilli();
        Files.writeString(d.resolve(FileNames.LOCK_FILE), parent.pid() + " " + (start - 60_000) + "\n");
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }
}
