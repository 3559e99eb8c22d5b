package dev.kafko.spring.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * The directory the auto-configured {@code Kafko} opens. An ephemeral one is a fresh temporary
 * directory, deleted when this bean is destroyed — which is after the {@code Kafko} bean that
 * depends on it closed. Immutable; destroyed once by the container.
 */
public final class KafkoDataDirectory implements DisposableBean {

    private static final Logger LOG = LoggerFactory.getLogger(KafkoDataDirectory.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final String EPHEMERAL_PREFIX = "kafko-";
    /** {@code kafko-<pid>-<random>}: an ephemeral directory and the process that made it. */
    private static final Pattern EPHEMERAL_NAME = Pattern.compile("kafko-(\\d{1,18})-[0-9a-z]{1,13}");

    private final Path path;
    private final boolean ephemeral;

    private KafkoDataDirectory(Path path, boolean ephemeral) {
        this.path = path;
        this.ephemeral = ephemeral;
    }

    /** A directory that outlives the context. */
    public static KafkoDataDirectory of(Path path) {
        return new KafkoDataDirectory(path, false);
    }

    /**
     * A new temporary directory under {@code java.io.tmpdir}, readable only by its owner where the
     * file system has POSIX permissions, deleted on destroy. The name comes from a non-secure random
     * number ({@code Files.createTempDirectory} would initialise a {@code SecureRandom}, which costs
     * tens of milliseconds of start-up); {@code createDirectory} fails on an existing name, so a
     * taken name is never reused. The name holds this process's pid ({@code kafko-<pid>-<random>}): the
     * ephemeral directories of a process that no longer runs (a test JVM that was killed) are deleted
     * here, before the new one is made.
     */
    public static KafkoDataDirectory ephemeral() {
        Path parent = Path.of(System.getProperty("java.io.tmpdir"));
        deleteAbandoned(parent);
        boolean posix = parent.getFileSystem().supportedFileAttributeViews().contains("posix");
        String prefix = EPHEMERAL_PREFIX + ProcessHandle.current().pid() + "-";
        IOException last = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            Path candidate = parent.resolve(prefix + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36));
            try {
                Path created = posix
                        ? Files.createDirectory(candidate, PosixFilePermissions.asFileAttribute(OWNER_ONLY))
                        : Files.createDirectory(candidate);
                return new KafkoDataDirectory(created, true);
            } catch (FileAlreadyExistsException e) {
                last = e;
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create a temporary kafko data directory " + candidate, e);
            }
        }
        throw new UncheckedIOException("Cannot create a temporary kafko data directory in " + parent, last);
    }

    /**
     * Deletes the ephemeral directories under {@code parent} whose process no longer runs. A directory
     * whose pid runs (this process, or another that reused the pid) is left alone; any failure only
     * leaves a directory behind.
     */
    static void deleteAbandoned(Path parent) {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, EPHEMERAL_PREFIX + "*")) {
            for (Path dir : dirs) {
                Matcher m = EPHEMERAL_NAME.matcher(dir.getFileName().toString());
                if (m.matches() && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                        && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    try {
                        deleteTree(dir);
                        LOG.debug("Deleted {}, the ephemeral kafko directory of a process that no longer runs", dir);
                    } catch (IOException | RuntimeException e) {
                        LOG.debug("Could not delete the abandoned ephemeral directory {}: {}", dir, e.toString());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not look for abandoned ephemeral directories in {}: {}", parent, e.toString());
        }
    }

    public Path path() {
        return path;
    }

    public boolean isEphemeral() {
        return ephemeral;
    }

    @Override
    public void destroy() throws IOException {
        if (ephemeral && Files.exists(path)) {
            deleteTree(path);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    @Override
    public String toString() {
        return path + (ephemeral ? " (ephemeral)" : "");
    }
}
