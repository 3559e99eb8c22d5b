package dev.kafko.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The power-loss disk model, and a trigger run at each step of the file system (an open, a force, a move, a delete, a
 * directory fsync) while armed: crash tests copy the directory, or the disk's power-loss image, at every step of a call.
 */
final class SteppingDisk implements HookedFileIo.Hooks {

    final PowerLossDisk disk;
    volatile @Nullable Runnable armed;

    SteppingDisk(PowerLossDisk disk) {
        this.disk = disk;
    }

    private void step() {
        Runnable r = armed;
        if (r != null) {
            r.run();
        }
    }

    @Override
    public void afterOpen(Path path, boolean existed) throws IOException {
        disk.afterOpen(path, existed);
    }

    @Override
    public void beforeForce(Path path) {
        step();
    }

    @Override
    public void afterForce(Path path) throws IOException {
        disk.afterForce(path);
        step();
    }

    @Override
    public void beforeMove(Path source, Path target) {
        step();
    }

    @Override
    public void beforeDelete(Path path) {
        step();
    }

    @Override
    public void afterFsyncDirectory(Path dir) throws IOException {
        disk.afterFsyncDirectory(dir);
        step();
    }

    /** Copies a live data directory, but its lock, as a kill -9 at this moment would leave it on disk. */
    static void copyLive(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else if (!p.getFileName().toString().equals(".lock")) {
                    try {
                        Files.copy(p, t);
                    } catch (NoSuchFileException e) {
                        // deleted while listed
                    }
                }
            }
        }
    }
}
