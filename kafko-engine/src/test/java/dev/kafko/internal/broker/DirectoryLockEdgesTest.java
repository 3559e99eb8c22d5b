package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.AlreadyOpenException;
import dev.kafko.KafkoStorageException;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.OpensOnlyFileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The edges of {@link DirectoryLock}: a second release, the owner records it refuses or ignores, failed calls. */
class DirectoryLockEdgesTest {

    @TempDir
    Path tmp;

    @Test
    void aSecondReleaseOfAnOldLockLeavesTheDirectoryToItsNewHolder() throws Exception {
        Path d = tmp.toRealPath();
        DirectoryLock old = DirectoryLock.acquire(d, FileIo.SYSTEM);
        old.close();
        DirectoryLock current = DirectoryLock.acquire(d, FileIo.SYSTEM);
        try {
            old.release(); // a close taken over releases again: nothing happens
            assertThatThrownBy(() -> DirectoryLock.acquire(d, FileIo.SYSTEM))
                    .isInstanceOf(AlreadyOpenException.class)
                    .hasMessageContaining("data directory " + d + " is already open in this JVM");
            assertThat(Files.readString(d.resolve(FileNames.LOCK_FILE)))
                    .startsWith(ProcessHandle.current().pid() + " ");
        } finally {
            current.release();
        }
    }

    @Test
    void theRecordNamesThisProcessesStartInstant() throws Exception {
        Path d = tmp.toRealPath();
        try (DirectoryLock lock = DirectoryLock.acquire(d, FileIo.SYSTEM)) {
            String[] record = Files.readString(d.resolve(FileNames.LOCK_FILE), StandardCharsets.US_ASCII).trim()
                    .split(" ");
            assertThat(Long.parseLong(record[1]))
                    .isEqualTo(ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli());
            assertThat(Files.readString(d.resolve(FileNames.LOCK_FILE))).endsWith("\n");
        }
    }

    @Test
    void aRecordOfALiveProcessWithoutAStartInstantOrAFileIdStillBlocks() throws Exception {
        Path d = tmp.toRealPath();
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        Path lockFile = d.resolve(FileNames.LOCK_FILE);
        for (String record : new String[] {parent + " 0", parent + " 0 0", parent + " 0 0 0"}) {
            Files.writeString(lockFile, record + "\n");
            assertThatThrownBy(() -> DirectoryLock.acquire(d, FileIo.SYSTEM))
                    .as(record)
                    .isInstanceOf(AlreadyOpenException.class)
                    .hasMessageContaining("data directory " + d + " is open in another live process (pid " + parent
                            + ")");
        }
        // refused without being held
        Files.writeString(lockFile, "");
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }

    @Test
    void recordsThatDoNotParseCountAsNone() throws Exception {
        Path d = tmp.toRealPath();
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        long start = ProcessHandle.current().parent().orElseThrow().info().startInstant().orElseThrow().toEpochMilli();
        Path lockFile = d.resolve(FileNames.LOCK_FILE);
        for (String record : new String[] {String.valueOf(parent), parent + " " + start + " 0 0 0",
                parent + " soon", "pid " + start, "   "}) {
            Files.writeString(lockFile, record + "\n");
            DirectoryLock lock = DirectoryLock.acquire(d, FileIo.SYSTEM);
            assertThat(Files.readString(lockFile)).as(record).startsWith(ProcessHandle.current().pid() + " ");
            lock.release();
        }
    }

    @Test
    void aRecordOfAProcessThatEndedDoesNotBlock() throws Exception {
        Path d = tmp.toRealPath();
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(30, TimeUnit.SECONDS)).isTrue();
        long start = ended.info().startInstant().map(i -> i.toEpochMilli()).orElse(0L);
        Files.writeString(d.resolve(FileNames.LOCK_FILE), ended.pid() + " " + start + "\n");
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }

    @Test
    void anAcquireThatFailsLeavesTheDirectoryFreeWhateverItThrew() throws Exception {
        Path d = tmp.toRealPath();
        AtomicInteger calls = new AtomicInteger();
        Throwable[] toThrow = {new IOException("injected: no descriptors"), new IllegalStateException("injected"),
                new OutOfMemoryError("injected")};
        FileIo failing = new OpensOnlyFileIo() {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                Throwable t = toThrow[calls.getAndIncrement()];
                if (t instanceof IOException io) {
                    throw io;
                }
                if (t instanceof RuntimeException re) {
                    throw re;
                }
                throw (Error) t;
            }

        };
        Path lockFile = d.resolve(FileNames.LOCK_FILE);
        assertThatThrownBy(() -> DirectoryLock.acquire(d, failing))
                .isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("cannot lock data directory " + d + " through " + lockFile)
                .hasMessageContaining("injected: no descriptors");
        assertThatThrownBy(() -> DirectoryLock.acquire(d, failing))
                .isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("lock data directory failed on " + lockFile)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> DirectoryLock.acquire(d, failing)).isInstanceOf(OutOfMemoryError.class);
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }

    @Test
    void aReleaseThatCannotClearTheRecordIsAStorageErrorAndStillLetsTheDirectoryGo() throws Exception {
        Path d = tmp.toRealPath();
        AtomicBoolean failTruncate = new AtomicBoolean();
        AtomicBoolean closed = new AtomicBoolean();
        FileIo io = new OpensOnlyFileIo() {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                return new DelegatingFileChannel(FileIo.SYSTEM.open(path, options)) {
                    @Override
                    public FileChannel truncate(long size) throws IOException {
                        if (failTruncate.get()) {
                            throw new IOException("injected: read-only file system");
                        }
                        return super.truncate(size);
                    }

                    @Override
                    protected void implCloseChannel() throws IOException {
                        closed.set(true);
                        super.implCloseChannel();
                    }
                };
            }
        };
        DirectoryLock lock = DirectoryLock.acquire(d, io);
        failTruncate.set(true);
        assertThatThrownBy(lock::release)
                .isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("cannot release the lock of " + d.resolve(FileNames.LOCK_FILE))
                .hasMessageContaining("injected: read-only file system");
        assertThat(closed).isTrue();
        lock.release(); // released already: nothing to report again
        DirectoryLock.acquire(d, FileIo.SYSTEM).release();
    }

    @Test
    void aRefusedOrFailedAcquireClosesTheChannelItOpened() throws Exception {
        Path d = tmp.toRealPath();
        AtomicInteger open = new AtomicInteger();
        Throwable[] readFails = {null};
        FileIo counting = new OpensOnlyFileIo() {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                return new DelegatingFileChannel(DelegatingFileChannel.countedOpen(FileIo.SYSTEM.open(path, options),
                        open)) {
                    @Override
                    public int read(java.nio.ByteBuffer dst, long position) throws IOException {
                        Throwable t = readFails[0];
                        if (t instanceof IOException e) {
                            throw e;
                        }
                        if (t instanceof Error e) {
                            throw e;
                        }
                        return super.read(dst, position);
                    }
                };
            }
        };
        ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
        long start = parent.info().startInstant().orElseThrow().toEpochMilli();
        Files.writeString(d.resolve(FileNames.LOCK_FILE), parent.pid() + " " + start + "\n");
        assertThatThrownBy(() -> DirectoryLock.acquire(d, counting)).isInstanceOf(AlreadyOpenException.class);
        assertThat(open).as("channels left open after a refusal").hasValue(0);

        Files.writeString(d.resolve(FileNames.LOCK_FILE), "");
        readFails[0] = new IOException("injected: read");
        assertThatThrownBy(() -> DirectoryLock.acquire(d, counting)).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("injected: read");
        assertThat(open).as("channels left open after an I/O error").hasValue(0);

        readFails[0] = new OutOfMemoryError("injected");
        assertThatThrownBy(() -> DirectoryLock.acquire(d, counting)).isInstanceOf(OutOfMemoryError.class);
        assertThat(open).as("channels left open after an Error").hasValue(0);

        readFails[0] = null;
        DirectoryLock lock = DirectoryLock.acquire(d, counting);
        assertThat(open).hasValue(1);
        lock.close();
        assertThat(open).hasValue(0);
    }
}
