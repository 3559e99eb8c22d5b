package dev.kafko.internal.broker;

import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.AtomicFiles;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the committed offsets of one group on one topic, as an append-only file of small
 * CRC-framed entries. Not thread-safe: its {@link GroupCoordinator} calls it under its commit lock.
 *
 * <pre>
 * header (8 bytes)
 *   0  4  magic "KFGO"
 *   4  4  version (1)
 * entry (16 bytes), repeated
 *   0  4  partition
 *   4  8  committed offset (the next record to read)
 *  12  4  CRC32C of bytes [0, 12) of the entry
 * </pre>
 *
 * <p>Replay on open keeps the last valid entry per partition and stops at the first entry that
 * fails its CRC (a torn tail after a crash). A commit is one {@code write} of its entries, forced
 * when the topic fsyncs every batch, so it costs a system call, not a rename. When the file holds
 * more than {@link #compactionThreshold} entries it is rewritten with one entry per partition
 * through {@link AtomicFiles} (temp file, fsync, atomic rename): a crash leaves the old or the new
 * file, each of which replays to the same offsets. A commit whose write fails (a torn entry, a file
 * left without its header) changes nothing the group reports, and the next commit first rewrites the file
 * from the offsets committed before it, the same way. A file whose header is damaged is reported by
 * {@link #wasCorrupt()} and replays to no offsets; the group then starts by its reset policy.
 */
final class GroupOffsetsFile implements AutoCloseable {

    static final int MAGIC = 0x4B46474F; // "KFGO"
    static final int VERSION = 1;
    static final int HEADER_BYTES = 8;
    static final int ENTRY_BYTES = 16;
    /** What a replay reads at a time: a whole number of entries after the header. */
    private static final int REPLAY_BLOCK = HEADER_BYTES + 4096 * ENTRY_BYTES;
    private static final System.Logger LOG = System.getLogger(GroupOffsetsFile.class.getName());

    private final FileIo io;
    private final Path file;
    /** Whether creating the file forces it and its directory entries to disk. */
    private final boolean syncCreation;
    private final ByteBuffer buffer = ByteBuffer.allocate(64 * ENTRY_BYTES);
    private final CRC32C crc = new CRC32C();
    private @Nullable FileChannel channel;
    private long[] committed; // -1: none
    private long entries;
    private boolean corrupt;
    /**
     * Whether a write failed, so the file may end in a torn entry (or miss its header): the next commit first
     * rewrites it from what is known to be committed, so that its entries never follow garbage.
     */
    private boolean damaged;

    private GroupOffsetsFile(FileIo io, Path file, boolean syncCreation) {
        this.syncCreation = syncCreation;
        this.io = io;
        this.file = file;
    }

    /**
     * Replays the file if it exists; the file is created by the first commit, its directory entry
     * forced to disk when {@code syncCreation} (see {@code KafkoOptions.fsyncMetadata}).
     */
    static GroupOffsetsFile open(FileIo io, Path file, String what, boolean syncCreation) {
        GroupOffsetsFile f = new GroupOffsetsFile(io, file, syncCreation);
        try {
            boolean clean = f.replay(what);
            if (!clean) {
                // rewrite what survived so that new entries never follow garbage
                f.compact();
            }
        } catch (IOException | RuntimeException e) {
            throw e instanceof KafkoStorageException k ? k
                    : new KafkoStorageException("cannot open group offsets " + file + ": " + e, e);
        }
        return f;
    }

    /**
     * Creates {@code dir} and its missing parents (the groups directory, then the group's), each
     * entry made durable before anything relies on a file below it when {@code sync}.
     */
    private static void createDirectory(FileIo io, Path dir, boolean sync) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        createDirectory(io, dir.getParent(), sync);
        Files.createDirectories(dir);
        if (sync) {
            io.fsyncDirectory(dir.getParent());
        }
    }

    /**
     * Moves a group's offsets file from where it was kept before each group had a directory to
     * {@code file}, when only the old one exists: one atomic rename, so a crash leaves it in one
     * place or the other, and the next open looks again. When both exist, {@code file} is kept and a
     * warning names both when {@code warnOfBoth} (the open's look, not a group's first use after it).
     */
    static void adoptLegacy(FileIo io, Path legacy, Path file, boolean sync, boolean warnOfBoth) {
        // a directory of that name is the group named "<group>.offsets", in the layout of today
        if (!Files.isRegularFile(legacy)) {
            return;
        }
        if (Files.exists(file)) {
            if (!warnOfBoth) {
                return;
            }
            // a version before group directories opened the directory after this one moved the file: its commits
            // since are in the old file, which this version does not read
            LOG.log(Level.WARNING, "group offsets in both layouts: " + file + " is read, " + legacy + " (written by a"
                    + " version that keeps each group's offsets in <group>.offsets, after this one moved them) is left"
                    + " as it is: move it over " + file + " to go on from the older version's commits");
            return;
        }
        try {
            createDirectory(io, file.getParent(), sync);
            io.atomicMove(legacy, file);
            if (sync) {
                io.fsyncDirectory(file.getParent());
                io.fsyncDirectory(legacy.getParent());
            }
        } catch (IOException e) {
            throw new KafkoStorageException("cannot move group offsets " + legacy + " to " + file + ": " + e, e);
        }
    }

    /**
     * Deletes a group's offsets ({@code Kafko.deleteGroup}; the caller let its open instance go): {@code legacy} (the
     * layout before each group had a directory, read only where {@code file} is missing) first, then {@code file},
     * the commit point: an unlink is atomic, so a crash leaves the group with its last offsets or with none, never
     * with the older ones of {@code legacy}. When {@code sync}, each directory is fsynced after its entry went, the
     * groups directory before {@code file} goes. Then the group's directory goes, with the temp file of a compaction
     * that a crash cut; what fails there is only logged (an empty directory is no group: {@code Kafko.groups} lists
     * a group by its offsets file, and a new member of the name uses the directory).
     *
     * @return the failure of the fsync that makes the deletion durable (the offsets are gone in this process; a crash
     *     may bring them back), else null
     * @throws KafkoStorageException when a file could not be deleted: the group's offsets are as they were (a
     *     {@code legacy} file gone beside {@code file} was not read)
     */
    static @Nullable KafkoStorageException delete(FileIo io, Path file, Path legacy, String what, boolean sync) {
        Path dir = file.getParent();
        Path groups = dir.getParent();
        boolean legacyThere = Files.isRegularFile(legacy, LinkOption.NOFOLLOW_LINKS);
        boolean fileThere = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
        Path at = legacy;
        try {
            if (legacyThere) {
                io.deleteIfExists(legacy);
                if (fileThere && sync) {
                    at = groups; // durably gone before the file that was read in its place is
                    io.fsyncDirectory(groups);
                }
            }
            if (fileThere) {
                at = file;
                io.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw StorageErrors.wrap("delete the offsets of " + what, at, e);
        } catch (RuntimeException e) {
            throw StorageErrors.typed("delete the offsets of " + what, at, e);
        }
        KafkoStorageException late = null;
        if (sync && (legacyThere || fileThere)) {
            Path parent = fileThere ? dir : groups;
            try {
                io.fsyncDirectory(parent);
            } catch (IOException | RuntimeException e) {
                late = new KafkoStorageException("the offsets of " + what + " were deleted, but the deletion could not"
                        + " be made durable (a crash may bring them back): fsync of " + parent + " failed: " + e, e);
            }
        }
        Path tmp = file.resolveSibling(file.getFileName() + FileNames.TMP_SUFFIX);
        try {
            io.deleteIfExists(tmp);
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                io.deleteIfExists(dir);
                if (sync) {
                    io.fsyncDirectory(groups);
                }
            }
        } catch (DirectoryNotEmptyException e) {
            LOG.log(Level.WARNING, what + " was deleted; its directory " + dir + " is left, as it holds files kafko"
                    + " never writes there");
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, what + " was deleted; its directory " + dir + " could not be removed (an empty"
                    + " directory is no group): " + e, e);
        }
        return late;
    }

    private FileChannel channel() throws IOException {
        FileChannel ch = channel;
        if (ch == null) {
            createDirectory(io, file.getParent(), syncCreation);
            ch = io.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            boolean ready = false;
            try {
                if (ch.size() == 0) {
                    writeHeader(ch);
                    if (syncCreation) {
                        // the new file's directory entry must survive a crash before commits rely on it
                        ch.force(true);
                        io.fsyncDirectory(file.getParent());
                    }
                }
                ch.position(ch.size());
                ready = true;
            } finally {
                if (!ready) {
                    closeQuietly(ch);
                }
            }
            channel = ch;
        }
        return ch;
    }

    /** After a failed write: the channel goes, and the next commit rewrites the file first. */
    private void damaged() {
        damaged = true;
        FileChannel ch = channel;
        channel = null;
        if (ch != null) {
            closeQuietly(ch);
        }
    }

    /** Rewrites the file from the offsets known to be committed (none: no file), after a failed write. */
    private void repair() throws IOException {
        boolean any = false;
        for (long c : committed) {
            any |= c >= 0;
        }
        if (any) {
            createDirectory(io, file.getParent(), syncCreation);
            compact();
        } else {
            io.deleteIfExists(file);
        }
        damaged = false;
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException | RuntimeException e) {
            // the write already failed; that failure is what the caller hears of
        }
    }

    /** Whether the file failed its checks when it was opened (the offsets after the damage were lost). */
    boolean wasCorrupt() {
        return corrupt;
    }

    /** The committed offset of {@code partition}, or -1. */
    long committed(int partition) {
        return partition < committed.length ? committed[partition] : -1;
    }

    /**
     * Appends one entry per offset; forces the file when {@code force}. No offsets, no file: the group
     * would be listed as one with commits ({@code Kafko.groups}) without any.
     */
    void commit(Map<Integer, Long> offsets, boolean force) {
        if (offsets.isEmpty()) {
            return;
        }
        buffer.clear();
        boolean written = false;
        try {
            if (damaged) {
                repair();
            }
            FileChannel ch = channel();
            for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
                if (buffer.remaining() < ENTRY_BYTES) {
                    writeBuffer(ch);
                }
                putEntry(e.getKey(), e.getValue());
            }
            writeBuffer(ch);
            if (force) {
                ch.force(false);
            }
            written = true;
        } catch (IOException | RuntimeException e) {
            throw e instanceof KafkoStorageException k ? k
                    : new KafkoStorageException("cannot write group offsets " + file + ": " + e, e);
        } finally {
            if (!written) {
                damaged();
            }
        }
        // known as committed only now: a failed commit changes nothing the group reports
        for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
            remember(e.getKey(), e.getValue());
        }
        if (entries > compactionThreshold()) {
            try {
                channel.close();
                channel = null;
                compact();
                channel();
            } catch (IOException | RuntimeException e) {
                // the commit itself is written; the next one tries the rewrite again
                damaged();
                LOG.log(Level.WARNING, "cannot compact group offsets " + file + ": " + e, e);
            }
        }
    }

    /** Commits one partition; the hot path of {@code Consumer.commit()} with one partition. */
    void commit(int partition, long offset, boolean force) {
        commit(Map.of(partition, offset), force);
    }

    /** Forces written entries to disk; a file a failed write or fsync left is rewritten (and so forced) first. */
    void force() {
        if (damaged) {
            try {
                repair();
            } catch (IOException | RuntimeException e) {
                throw new KafkoStorageException("cannot rewrite group offsets " + file + ": " + e, e);
            }
            return;
        }
        if (channel == null) {
            return;
        }
        try {
            channel.force(false);
        } catch (IOException | RuntimeException e) {
            // what the failed fsync covered may never reach the disk: the next commit rewrites the file
            damaged();
            throw new KafkoStorageException("cannot fsync group offsets " + file + ": " + e, e);
        }
    }

    private long compactionThreshold() {
        return Math.max(64 * 1024, 16L * committed.length);
    }

    private void putEntry(int partition, long offset) {
        int start = buffer.position();
        buffer.putInt(partition).putLong(offset);
        crc.reset();
        crc.update(buffer.array(), start, 12);
        buffer.putInt((int) crc.getValue());
    }

    private void remember(int partition, long offset) {
        if (partition >= committed.length) {
            int old = committed.length;
            committed = Arrays.copyOf(committed, partition + 1);
            Arrays.fill(committed, old, committed.length, -1);
        }
        committed[partition] = offset;
        entries++;
    }

    private void writeBuffer(FileChannel ch) throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            ch.write(buffer);
        }
        buffer.clear();
    }

    private static void writeHeader(FileChannel ch) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(VERSION).flip();
        while (h.hasRemaining()) {
            ch.write(h);
        }
    }

    /**
     * Loads the offsets; false when the file was damaged (and should be rewritten). The file is read a
     * block at a time, whatever its size says, and an entry for a partition no topic can have is damage:
     * a file copied in from elsewhere or crafted cannot make the open allocate by what it claims.
     */
    private boolean replay(String what) throws IOException {
        committed = new long[0];
        entries = 0;
        FileChannel ch;
        try {
            ch = io.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            return true;
        }
        try (ch) {
            long size = ch.size();
            ByteBuffer in = ByteBuffer.allocate(REPLAY_BLOCK);
            boolean eof = fill(ch, in);
            in.flip();
            if (!in.hasRemaining()) {
                // the file is created with its header: no commit of it reached the disk (a crash right after
                // the first one was made, under a policy that does not fsync it), or the file was cut
                LOG.log(Level.WARNING, what + ": offsets file " + file + " is empty; no committed offset survived"
                        + " and the group starts by its offset reset policy");
                return false;
            }
            if (in.remaining() < HEADER_BYTES || in.getInt() != MAGIC || in.getInt() != VERSION) {
                corrupt = true;
                LOG.log(Level.WARNING, what + ": offsets file " + file + " has no valid header; the committed offsets"
                        + " are lost and the group starts by its offset reset policy");
                return false;
            }
            long at = HEADER_BYTES;
            while (true) {
                if (in.remaining() < ENTRY_BYTES && !eof) {
                    in.compact();
                    eof = fill(ch, in);
                    in.flip();
                }
                if (in.remaining() < ENTRY_BYTES) {
                    break;
                }
                int start = in.position();
                int partition = in.getInt();
                long offset = in.getLong();
                int stored = in.getInt();
                crc.reset();
                crc.update(in.array(), start, 12);
                if ((int) crc.getValue() != stored || partition < 0 || partition >= TopicConfig.MAX_PARTITIONS
                        || offset < 0) {
                    boolean tail = at + ENTRY_BYTES >= size; // the last entry: torn by a crash
                    if (!tail) {
                        corrupt = true;
                    }
                    LOG.log(tail ? Level.INFO : Level.WARNING, what + ": offsets file " + file
                            + " has a damaged entry at byte " + at + "; entries from there on are ignored");
                    return false;
                }
                remember(partition, offset);
                at += ENTRY_BYTES;
            }
            if (in.hasRemaining()) {
                LOG.log(Level.INFO, what + ": offsets file " + file + " ends in a torn entry; it is ignored");
                return false;
            }
            return true;
        }
    }

    /** Reads into {@code buf} until it is full or the file ends; true at the end of the file. */
    private static boolean fill(FileChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                return true;
            }
        }
        return false;
    }

    /** Rewrites the file with one entry per committed partition, atomically. */
    private void compact() throws IOException {
        int n = 0;
        for (long c : committed) {
            if (c >= 0) {
                n++;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + n * ENTRY_BYTES);
        out.putInt(MAGIC).putInt(VERSION);
        for (int p = 0; p < committed.length; p++) {
            if (committed[p] >= 0) {
                int start = out.position();
                out.putInt(p).putLong(committed[p]);
                crc.reset();
                crc.update(out.array(), start, 12);
                out.putInt((int) crc.getValue());
            }
        }
        out.flip();
        // temp + fsync + rename: a crash leaves the old file or the compacted one
        AtomicFiles.write(io, file, out);
        entries = n;
    }

    /**
     * Forces and closes the file; one a failed write or fsync left is rewritten from the offsets committed before
     * it: a failed commit does not come back at the next open, and what was committed is durable.
     */
    @Override
    public void close() {
        if (!damaged && channel != null) {
            try {
                channel.force(false);
                channel.close();
                channel = null;
                return;
            } catch (IOException | RuntimeException e) {
                damaged(); // what the fsync covered may never reach the disk: written again below
            } catch (Error e) {
                damaged(); // its descriptors go all the same
                throw e;
            }
        }
        try {
            if (damaged) {
                repair();
            }
        } catch (IOException | RuntimeException e) {
            throw new KafkoStorageException("cannot close group offsets " + file + ": " + e, e);
        }
    }

    /** Closes the file without forcing or repairing it: its topic is being deleted. */
    void discard() {
        FileChannel ch = channel;
        channel = null;
        damaged = false;
        if (ch != null) {
            closeQuietly(ch);
        }
    }
}
