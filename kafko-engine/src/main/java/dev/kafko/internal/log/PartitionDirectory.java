package dev.kafko.internal.log;

import dev.kafko.internal.io.AtomicFiles;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Internal: the durability of a partition directory's own entries, for its {@link PartitionLog}'s
 * writer: the clean-shutdown marker, which lets the next open skip the CRC scan, with the clean close it
 * vouches for and the active segment's index files that close leaves, and the directory fsyncs that make
 * created and deleted files' names durable. Writer only.
 */
final class PartitionDirectory {

    private static final int CLEAN_MARKER_MAGIC = 0x4B464B43;
    private static final short CLEAN_MARKER_VERSION = 1;

    private final FileIo io;
    private final Path dir;
    /**
     * Whether the clean-shutdown marker is on disk and still describes the files: true from a clean
     * open until the first append.
     */
    private boolean markerOnDisk;
    /** Whether a segment file was created whose directory entry is not yet durable. */
    private boolean syncPending;
    /**
     * Whether the active segment has index files, left by a clean close: they describe fewer records
     * than it holds once appended to, until its seal writes new ones.
     */
    private boolean activeIndexFiles;

    PartitionDirectory(FileIo io, Path dir, boolean markerOnDisk, boolean syncPending, long activeBase) {
        this.io = io;
        this.dir = dir;
        this.markerOnDisk = markerOnDisk;
        this.syncPending = syncPending;
        this.activeIndexFiles = Files.exists(FileNames.indexFile(dir, activeBase));
    }

    /** Whether the clean-shutdown marker on disk still describes the files (nothing appended since a clean open). */
    boolean markerOnDisk() {
        return markerOnDisk;
    }

    /**
     * Deletes the clean-shutdown marker durably before the first write after a clean open (an append,
     * or a roll that retention makes to delete the active segment). Until then the files are exactly
     * as the marker describes them (a clean open changes nothing, and retention otherwise deletes only
     * sealed segments, which the marker does not vouch for), so a crash
     * before this point reopens as clean and correctly so; a crash after it reopens with a scan.
     */
    void dropCleanMarker() {
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        try {
            io.deleteIfExists(marker);
        } catch (IOException e) {
            throw StorageErrors.wrap("delete clean-shutdown marker", marker, e);
        }
        fsync("fsync directory after deleting the clean-shutdown marker");
        markerOnDisk = false;
        syncPending = false;
    }

    /**
     * At a roll of the active segment at {@code base}: the index files a clean close left for it are
     * deleted durably, if there are any.
     */
    void dropActiveIndexFiles(long base) {
        if (activeIndexFiles) {
            // gone durably before the next segment exists: with them, a crash before the seal ends would
            // look to the loader like one after it, and a tail the crash cut would stay a hole, not be cut
            IndexFiles.delete(io, dir, base);
            fsync("fsync directory after deleting the index files of a rolled segment");
            activeIndexFiles = false;
        }
    }

    /**
     * At a clean close, once the rolled segments are durable: the {@code active} segment cut to its
     * frames and forced, its index files, the marker that vouches for them, then one directory fsync
     * that makes every rename durable.
     */
    void closeClean(Segment active) {
        // order: data durable, then its index and the marker that vouches for both. The
        // index files and the marker are not fsynced one by one: the marker only lets the
        // next open skip the scan when the index files pass their CRC and agree with the
        // segment's size and frames, so a crash that loses or tears any of them costs a
        // scan, never a record. The one directory fsync makes the renames durable.
        active.file().endAppends();
        active.file().truncateAndForce(active.size());
        active.writeIndexFiles(io, dir, false);
        active.file().closeChannel();
        byte[] b = new byte[8];
        FrameFormat.putInt(b, 0, CLEAN_MARKER_MAGIC);
        FrameFormat.putShort(b, 4, CLEAN_MARKER_VERSION);
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        try {
            AtomicFiles.replace(io, marker, ByteBuffer.wrap(b), false);
        } catch (IOException e) {
            throw StorageErrors.wrap("write clean-shutdown marker", marker, e);
        }
        fsync("fsync directory at close");
        syncPending = false;
    }

    /**
     * Closes the files of the log ({@code segs}, oldest first): with {@code clean}, unless the marker on disk still
     * describes them (nothing was appended since a clean open), the rolled segments' data made durable first
     * ({@code seals}), then the active one's, its index and the marker ({@link #closeClean}); otherwise they are only
     * released. Every file is closed whatever fails (the sealed segments' windows go back to the
     * {@link MappingBudget} now, not when collected); the failure is thrown.
     */
    void close(Segment[] segs, Seals seals, boolean clean) {
        if (!clean || markerOnDisk()) {
            SegmentFiles.closeAll(segs);
            return;
        }
        try {
            seals.forceUnforced();
            closeClean(segs[segs.length - 1]);
            SegmentFiles.closeAll(segs);
        } catch (RuntimeException | Error e) {
            SegmentFiles.closeAllAfter(segs, e);
            throw e;
        }
    }

    /** A segment file was created: its name becomes durable with the next flush or close. */
    void segmentCreated() {
        syncPending = true;
    }

    /** Makes the names of the segments created since the last directory fsync durable. */
    void syncIfPending() {
        if (syncPending) {
            fsync("fsync directory after creating a segment");
            syncPending = false;
        }
    }

    /** fsyncs the directory; {@code operation} names it in the exception. */
    void fsync(String operation) {
        try {
            io.fsyncDirectory(dir);
        } catch (IOException e) {
            throw StorageErrors.wrap(operation, dir, e);
        }
    }
}
