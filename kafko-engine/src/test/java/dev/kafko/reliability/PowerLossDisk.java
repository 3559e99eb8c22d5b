package dev.kafko.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What a disk would hold after a power loss: only what was fsynced. Thread-safe (every method
 * synchronized, so a simulated crash sees a consistent disk).
 *
 * <p>The model, per inode (the file key of Linux: device and inode number): its content is the
 * bytes the file held when it was last forced (read through a new channel, which also sees the
 * pages the storage wrote through its shared memory mapping), or nothing when it was never
 * forced. Per directory: its entries (name to inode, or "a directory") are those it held when it
 * was last fsynced; a directory never fsynced has no durable entries. A crash writes that state
 * into a fresh directory.
 */
final class PowerLossDisk implements HookedFileIo.Hooks {

    private static final Object DIRECTORY = "<dir>";

    private final Path root;
    private final Map<Object, byte[]> contentByInode = new HashMap<>();
    private final Map<Path, Map<String, Object>> entriesByDir = new HashMap<>();
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
        Map<String, Object> entries = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : (Iterable<Path>) list::iterator) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                entries.put(p.getFileName().toString(), a.isDirectory() ? DIRECTORY : a.fileKey());
            }
        }
        entriesByDir.put(dir, entries);
        directoryFsyncs++;
    }

    /** Writes what survives a power loss at this instant into {@code target} (which must not exist). */
    synchronized void crashInto(Path target) throws IOException {
        Files.createDirectories(target);
        materialize(root, target);
    }

    private void materialize(Path dir, Path target) throws IOException {
        Map<String, Object> entries = entriesByDir.getOrDefault(dir, Map.of());
        for (Map.Entry<String, Object> e : entries.entrySet()) {
            Path to = target.resolve(e.getKey());
            if (e.getValue() == DIRECTORY) {
                Files.createDirectories(to);
                materialize(dir.resolve(e.getKey()), to);
            } else {
                Files.write(to, contentByInode.getOrDefault(e.getValue(), new byte[0]));
            }
        }
    }

    synchronized String figures() {
        return forces + " fsyncs snapshotted (" + bytesSnapshotted + " bytes read), " + directoryFsyncs
                + " directory fsyncs";
    }

    private static Object inode(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    }
}
