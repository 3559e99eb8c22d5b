package dev.kafko.internal.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the file-system operations the engine's storage performs, in one narrow seam so that
 * tests can fail the Nth write, fsync or rename, or make a short write, and then reopen the log.
 * Every file the engine reads or writes is opened through an instance of this interface.
 * Implementations are thread-safe.
 */
public interface FileIo {

    /** The real file system. */
    FileIo SYSTEM = new SystemFileIo();

    /** Opens a channel; writes and {@link FileChannel#force(boolean)} go through the returned channel. */
    FileChannel open(Path path, OpenOption... options) throws IOException;

    /** Renames {@code source} to {@code target} atomically, replacing {@code target}. */
    void atomicMove(Path source, Path target) throws IOException;

    /** Deletes the file if it exists. */
    void deleteIfExists(Path path) throws IOException;

    /** Forces a directory's entries (creations, renames, deletions) to disk. */
    void fsyncDirectory(Path dir) throws IOException;

    /**
     * The bytes an unprivileged writer may still write on the file system that holds {@code path}
     * ({@code statvfs}'s available blocks; ext4 counts the blocks its delayed allocations reserved as
     * used), or 0 when that cannot be told (the path is gone, say).
     */
    default long usableSpace(Path path) {
        return path.toFile().getUsableSpace();
    }

    /**
     * The name under which the listing of {@code path}'s parent holds the entry that {@code path} reaches, when
     * that is another name: on a file system that does not tell names apart by case (macOS's APFS and Windows'
     * NTFS by default, a Linux directory with case folding), {@code orders} reaches {@code Orders}. {@code null}
     * when nothing is there, or when the listing holds {@code path}'s own name. A lookup and a listing, no change.
     */
    default @Nullable String heldUnderAnotherName(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        String listed = listedAlike(path);
        if (path.getFileName().toString().equals(listed)) {
            return null;
        }
        // not listed under its own name, yet it resolves: the file system folded it onto another entry
        return listed != null ? listed : "another name";
    }

    /**
     * The name under which the listing of {@code path}'s parent holds {@code path}'s name: that name itself when
     * listed so, else the first entry equal to it but for case, else {@code null}.
     */
    static @Nullable String listedAlike(Path path) throws IOException {
        String name = path.getFileName().toString();
        String other = null;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(path.getParent())) {
            for (Path entry : ds) {
                String n = entry.getFileName().toString();
                if (n.equals(name)) {
                    return n;
                }
                if (other == null && n.equalsIgnoreCase(name)) {
                    other = n;
                }
            }
        }
        return other;
    }
}
