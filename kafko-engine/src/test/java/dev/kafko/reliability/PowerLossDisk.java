package dev.kafko.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * What a disk would hold after a power loss: only what was fsynced. Thread-safe (every method
 * synchronized, so a simulated crash sees a consistent disk).
 *
 * <p>The model, per file (its identity: the file key of Linux, device and inode number, with its birth
 * time, so that a file or directory created on an inode number a deleted one had is another file): its
 * content is the bytes the file held when it was last forced (read through a new channel, which also
 * sees the pages the storage wrote through its shared memory mapping), or nothing when it was never
 * forced. Per directory (by identity too, not by path: a directory deleted and created again under its
 * name is a new one, which does not inherit the durable entries of the old one): its entries (name to
 * file or directory identity) are those it held when it was last fsynced; a directory never fsynced has
 * no durable entries. A crash writes that state, from the root's durable entries down, into a fresh
 * directory.
 */
final class PowerLossDisk implements HookedFileIo.Hooks {

    /** A durable directory entry: the identity of a file or directory. */
    private record Entry(Object id, boolean directory) {
    }

    private final Path root;
    private final Map<Object, byte[]> contentByInode = new HashMap<>();
    private final Map<Object, Map<String, Entry>> entriesByDir = new HashMap<>();
    private long forces;
    private long directoryFsyncs;
    private long bytesSnapshotted;

    PowerLossDisk(Path root) {
        this.root = root;
    }

    @Override
    public synchronized void afterOpen(Path path, boolean existed) throws IOException {
        if (!existed) {
            // a new file: its inode number may be a reused one, whose old content is gone
            contentByInode.remove(inode(path));
        }
    }

    @Override
    public synchronized void afterForce(Path path) throws IOException {
        byte[] bytes = Files.readAllBytes(path);
        contentByInode.put(inode(path), bytes);
        forces++;
        bytesSnapshotted += bytes.length;
    }

    @Override
    public synchronized void afterFsyncDirectory(Path dir) throws IOException {
        Map<String, Entry> entries = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : (Iterable<Path>) list::iterator) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                entries.put(p.getFileName().toString(), new Entry(identity(a), a.isDirectory()));
            }
        }
        entriesByDir.put(inode(dir), entries);
        directoryFsyncs++;
    }

    /** Writes what survives a power loss at this instant into {@code target} (which must not exist). */
    synchronized void crashInto(Path target) throws IOException {
        Files.createDirectories(target);
        materialize(inode(root), target);
    }

    private void materialize(Object dir, Path target) throws IOException {
        Map<String, Entry> entries = entriesByDir.getOrDefault(dir, Map.of());
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            Path to = target.resolve(e.getKey());
            if (e.getValue().directory()) {
                Files.createDirectories(to);
                materialize(e.getValue().id(), to);
            } else {
                Files.write(to, contentByInode.getOrDefault(e.getValue().id(), new byte[0]));
            }
        }
    }

    /** What was fsynced of the file at {@code path} now (its last force), or {@code null} when it never was. */
    synchronized byte @Nullable [] forced(Path path) throws IOException {
        return contentByInode.get(inode(path));
    }

    synchronized String figures() {
        return forces + " fsyncs snapshotted (" + bytesSnapshotted + " bytes read), " + directoryFsyncs
                + " directory fsyncs";
    }

    /** The identity of the file or directory at {@code path} now. */
    private static Object inode(Path path) throws IOException {
        return identity(Files.readAttributes(path, BasicFileAttributes.class));
    }

    private static Object identity(BasicFileAttributes a) {
        return java.util.List.of(a.fileKey(), a.creationTime());
    }
}
