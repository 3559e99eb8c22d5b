package dev.kafko.internal.broker;

import dev.kafko.AlreadyOpenException;
import dev.kafko.KafkoStorageException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.StorageErrors;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the exclusive lock of one data directory, held from open to close; {@link #acquire} and
 * {@link #release} may be called from any thread, once each.
 *
 * <p>Three guards, because the operating system's lock alone is not enough:
 * <ol>
 *   <li>a JVM-wide set of open canonical directories refuses a second open in this JVM without
 *       touching the lock file (POSIX {@code fcntl} locks belong to the process: closing <em>any</em>
 *       channel of the file in this process would drop the lock, and a second {@code tryLock} in one
 *       JVM throws {@link OverlappingFileLockException});
 *   <li>the {@code fcntl} lock of {@link FileNames#LOCK_FILE}, through one channel kept open;
 *   <li>the owner's pid and process start instant written into the lock file: a new opener that
 *       gets the {@code fcntl} lock still refuses when that recorded process is alive and is not this
 *       process, because the owner may have lost its {@code fcntl} lock by closing another channel of
 *       the file. The record is cleared on close. A record written into another lock file (the
 *       directory was copied while open, as a hot backup does) is not this directory's: the record
 *       carries the lock file's inode and the device of its file system, and a record naming another
 *       file is ignored (inode numbers repeat across file systems: a copy onto a fresh one often gets
 *       the original's).
 * </ol>
 * The record is one line of text: {@code <pid> <start instant epoch millis> <inode> <device>} (0 for
 * what the file system does not tell; a record without them, from an earlier version, counts for any
 * lock file). It is never forced to disk: only a live process can hold the directory, and a live process
 * reads the page cache; after a power loss every process a surviving record names is gone (a pid
 * reused after a reboot has another start instant), so a record lost or cut short by one changes no
 * decision (a record that does not parse counts as none).
 */
final class DirectoryLock implements AutoCloseable {

    private static final Set<Path> OPEN_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;
    /** Set once {@link #release} has run to its end: another instance of this JVM may hold the directory then. */
    private volatile boolean released;

    private DirectoryLock(Path dir, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks the canonical directory {@code dir}.
     *
     * @throws AlreadyOpenException naming the directory when it is open in this JVM or another process
     */
    static DirectoryLock acquire(Path dir, FileIo io) {
        if (!OPEN_IN_THIS_JVM.add(dir)) {
            throw new AlreadyOpenException("data directory " + dir + " is already open in this JVM");
        }
        Path file = dir.resolve(FileNames.LOCK_FILE);
        @Nullable FileChannel ch = null;
        try {
            // never through a link: the owner record truncates the file (a link planted in a directory
            // others can write would have it truncate whatever it names)
            ch = io.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                long[] owner = readOwner(ch);
                throw new AlreadyOpenException(owner != null && owner[0] == ProcessHandle.current().pid()
                        ? "data directory " + dir + " is already open in this JVM, through another path (a bind"
                                + " mount or a hard link of its lock file)"
                        : "data directory " + dir + " is locked by another process (" + describe(owner) + ")");
            }
            long[] owner = readOwner(ch);
            long[] id = fileId(file);
            if (owner != null && sameFile(owner, id) && isOtherLiveProcess(owner[0], owner[1])) {
                lock.release();
                throw new AlreadyOpenException("data directory " + dir + " is open in another live process ("
                        + describe(owner) + ")");
            }
            writeOwner(ch, selfRecord(id));
            return new DirectoryLock(dir, ch, lock);
        } catch (IOException e) {
            closeQuietly(ch);
            OPEN_IN_THIS_JVM.remove(dir);
            String why = Files.isSymbolicLink(file) ? "it is a symbolic link, which kafko does not follow (remove it)"
                    : e.toString();
            throw new KafkoStorageException("cannot lock data directory " + dir + " through " + file + ": " + why, e);
        } catch (RuntimeException e) {
            closeQuietly(ch);
            OPEN_IN_THIS_JVM.remove(dir);
            throw StorageErrors.typed("lock data directory", file, e);
        } catch (Error e) {
            // the directory must not stay locked for the JVM's life
            closeQuietly(ch);
            OPEN_IN_THIS_JVM.remove(dir);
            throw e;
        }
    }

    /** Clears the owner record, drops the lock and lets this JVM open the directory again. */
    void release() {
        if (released) {
            return; // a close taken over after its first run failed part-way (BrokerClose) releases it again
        }
        try {
            writeOwner(channel, "");
            lock.release();
        } catch (IOException e) {
            throw new KafkoStorageException("cannot release the lock of " + dir.resolve(FileNames.LOCK_FILE)
                    + ": " + e, e);
        } finally {
            closeQuietly(channel);
            OPEN_IN_THIS_JVM.remove(dir);
            released = true;
        }
    }

    @Override
    public void close() {
        release();
    }

    private static String selfRecord(long[] id) {
        ProcessHandle self = ProcessHandle.current();
        Optional<Instant> started = self.info().startInstant();
        long start = started.isPresent() ? started.get().toEpochMilli() : 0L;
        return self.pid() + " " + start + " " + id[0] + " " + id[1] + "\n";
    }

    /** The lock file's inode number and its file system's device, each 0 when the file system does not tell it. */
    private static long[] fileId(Path file) {
        return new long[] {unixAttribute(file, "unix:ino"), unixAttribute(file, "unix:dev")};
    }

    private static long unixAttribute(Path file, String name) {
        try {
            return Files.getAttribute(file, name) instanceof Long value ? value : 0L;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return 0L;
        }
    }

    /**
     * Whether a record ({@code pid, start, inode, device}) was written into the file {@code id} names
     * ({@code inode, device}); a 0 on either side is unknown, and counts as the same.
     */
    private static boolean sameFile(long[] owner, long[] id) {
        return same(owner[2], id[0]) && same(owner[3], id[1]);
    }

    private static boolean same(long recorded, long actual) {
        return recorded == 0 || actual == 0 || recorded == actual;
    }

    private static boolean isOtherLiveProcess(long pid, long startMillis) {
        if (pid == ProcessHandle.current().pid()) {
            // our own record: no instance of this JVM holds the directory (the set said so), so it is stale
            return false;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        Optional<Instant> start = handle.get().info().startInstant();
        // a different start instant means the pid was reused by an unrelated process
        return start.isEmpty() || startMillis == 0 || start.get().toEpochMilli() == startMillis;
    }

    private static long @Nullable [] readOwner(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(128);
        int n = ch.read(buf, 0);
        if (n <= 0) {
            return null;
        }
        String text = new String(buf.array(), 0, n, StandardCharsets.US_ASCII).trim();
        String[] parts = text.split(" ");
        if (parts.length < 2 || parts.length > 4) {
            return null;
        }
        try {
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                    parts.length >= 3 ? Long.parseLong(parts[2]) : 0L, parts.length == 4 ? Long.parseLong(parts[3]) : 0L};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String describe(long @Nullable [] owner) {
        return owner == null ? "no owner recorded" : "pid " + owner[0];
    }

    private static void writeOwner(FileChannel ch, String record) throws IOException {
        ch.truncate(0);
        ByteBuffer buf = ByteBuffer.wrap(record.getBytes(StandardCharsets.US_ASCII));
        long pos = 0;
        while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
        }
    }

    private static void closeQuietly(@Nullable FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException | RuntimeException ignored) {
                // nothing left to release
            }
        }
    }
}
