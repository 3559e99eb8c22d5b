package dev.kafko.spring.autoconfigure;

import dev.kafko.KafkoStorageException;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
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
    /** Ends an ephemeral directory's name: no data directory of the application's is taken for one. */
    private static final String EPHEMERAL_SUFFIX = ".ephemeral";
    /** The engine's lock file in a data directory. */
    private static final String LOCK_FILE = ".lock";
    /** Whether this JVM looked for abandoned ephemeral directories: once is enough (see {@link #ephemeral}). */
    private static final AtomicBoolean ABANDONED_SWEPT = new AtomicBoolean();
    /** {@code kafko-<pid>-<random>.ephemeral}: an ephemeral directory and the process that made it. */
    private static final Pattern EPHEMERAL_NAME = Pattern.compile("kafko-(\\d{1,18})-[0-9a-z]{1,13}\\.ephemeral");

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
     * taken name is never reused. The name holds this process's pid
     * ({@code kafko-<pid>-<random>.ephemeral}): the ephemeral directories of a process that no longer
     * runs (a test JVM that was killed) are deleted by the first one a JVM makes, once it is made, when
     * they belong to the same user (see {@link #deleteAbandoned}); later ones do not list the temporary
     * directory again (a test suite starts many contexts, and a shared {@code /tmp} can be large).
     */
    public static KafkoDataDirectory ephemeral() {
        Path parent = Path.of(System.getProperty("java.io.tmpdir"));
        boolean posix = parent.getFileSystem().supportedFileAttributeViews().contains("posix");
        String prefix = EPHEMERAL_PREFIX + ProcessHandle.current().pid() + "-";
        IOException last = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            Path candidate = parent.resolve(prefix + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36)
                    + EPHEMERAL_SUFFIX);
            Path created;
            try {
                created = posix
                        ? Files.createDirectory(candidate, PosixFilePermissions.asFileAttribute(OWNER_ONLY))
                        : Files.createDirectory(candidate);
            } catch (FileAlreadyExistsException e) {
                last = e;
                continue;
            } catch (IOException e) {
                throw cannotCreate(candidate.toString(), e);
            }
            sweepOnce(ABANDONED_SWEPT, parent, created);
            return new KafkoDataDirectory(created, true);
        }
        throw cannotCreate("in " + parent, last);
    }

    /**
     * Deletes the abandoned ephemeral directories under {@code parent} of the owner of {@code created} unless
     * {@code swept} says it was done; true when it looked.
     */
    static boolean sweepOnce(AtomicBoolean swept, Path parent, Path created) {
        if (!swept.compareAndSet(false, true)) {
            return false;
        }
        try {
            deleteAbandoned(parent, Files.getOwner(created, LinkOption.NOFOLLOW_LINKS), NoDescentHook.INSTANCE);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Did not look for abandoned ephemeral directories in {}: {}", parent, e.toString());
        }
        return true;
    }

    /** The {@code beforeDescend} of {@link #deleteAbandoned} outside tests: does nothing. */
    private static final class NoDescentHook implements Consumer<Path> {

        static final NoDescentHook INSTANCE = new NoDescentHook();

        @Override
        public void accept(Path dir) {
        }
    }

    private static KafkoStorageException cannotCreate(String where, @Nullable IOException cause) {
        return new KafkoStorageException("cannot create a temporary kafko data directory " + where + " (" + cause
                + "): kafko.ephemeral=true makes it under java.io.tmpdir, which must be a writable directory;"
                + " set -Djava.io.tmpdir, or set kafko.ephemeral=false and kafko.data-dir", cause);
    }

    /**
     * Deletes the ephemeral directories under {@code parent} whose process no longer runs and that
     * belong to {@code owner} (the name's {@value #EPHEMERAL_SUFFIX} keeps a data directory of the
     * application's, such as {@code kafko-2024-orders}, from being taken for one). A directory whose pid
     * runs (this process, or another that reused the pid) is left alone, and so is one whose lock a
     * process holds (one in another pid namespace, whose pid this process cannot see: a container sharing
     * the temporary directory), and one of another user: {@code java.io.tmpdir} is often shared, and
     * anyone can plant a directory of that name there. The deletion goes through directory handles (a
     * {@link SecureDirectoryStream}), never following a link: an entry swapped for a symbolic link while
     * the tree is deleted is at most unlinked, never entered. Where the file system offers no such
     * handles, nothing is deleted. Any failure only leaves a directory behind.
     *
     * @param beforeDescend called with each directory's path just before it is entered (tests)
     */
    static void deleteAbandoned(Path parent, UserPrincipal owner, Consumer<Path> beforeDescend) {
        List<String> abandoned = abandonedNames(parent);
        if (abandoned.isEmpty()) {
            return;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent)) {
            if (!(dirs instanceof SecureDirectoryStream<Path> secure)) {
                LOG.debug("Not deleting abandoned ephemeral directories in {}: no secure directory handles", parent);
                return;
            }
            for (String entry : abandoned) {
                Path name = parent.getFileSystem().getPath(entry);
                Path dir = parent.resolve(name);
                try {
                    PosixFileAttributes attrs = secure.getFileAttributeView(name, PosixFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS).readAttributes();
                    if (!attrs.isDirectory() || !attrs.owner().equals(owner) || isLocked(dir)) {
                        continue;
                    }
                    deleteTree(secure, name, dir, beforeDescend);
                    LOG.debug("Deleted {}, the ephemeral kafko directory of a process that no longer runs", dir);
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Could not delete the abandoned ephemeral directory {}: {}", dir, e.toString());
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not look for abandoned ephemeral directories in {}: {}", parent, e.toString());
        }
    }

    /**
     * The names under {@code parent} of ephemeral directories whose process no longer runs. The names come from one
     * listing call ({@link File#list()}): a shared temporary directory can hold thousands of entries, and a
     * {@link DirectoryStream} that makes a {@link Path} of each cost a start-up four to ten times as much.
     */
    private static List<String> abandonedNames(Path parent) {
        String[] names;
        try {
            names = parent.toFile().list();
        } catch (RuntimeException e) {
            names = null;
        }
        if (names == null) {
            LOG.debug("Could not list {} to look for abandoned ephemeral directories", parent);
            return List.of();
        }
        List<String> abandoned = new ArrayList<>();
        for (String name : names) {
            if (!name.startsWith(EPHEMERAL_PREFIX)) {
                continue;
            }
            Matcher m = EPHEMERAL_NAME.matcher(name);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                abandoned.add(name);
            }
        }
        return abandoned;
    }

    /**
     * Whether a process holds the lock of the kafko instance in {@code dir}: its pid may be one this
     * process cannot see. Called only for directories of this user whose pid is not this process's
     * (closing a channel of a file drops the locks this process holds on it).
     */
    private static boolean isLocked(Path dir) {
        try {
            // a FIFO (or a device) in the lock's place would block the open below for ever: only a file is opened
            if (!Files.readAttributes(dir.resolve(LOCK_FILE), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .isRegularFile()) {
                return true; // in doubt, it stays
            }
        } catch (NoSuchFileException e) {
            return false; // never opened
        } catch (IOException | RuntimeException e) {
            return true;
        }
        try (FileChannel lock = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            FileLock held = lock.tryLock();
            if (held == null) {
                return true;
            }
            held.release();
            return false;
        } catch (NoSuchFileException e) {
            return false; // never opened
        } catch (IOException | OverlappingFileLockException e) {
            return true; // in doubt, it stays
        }
    }

    /** Deletes the directory {@code name} of {@code parent} and everything in it, through handles only. */
    private static void deleteTree(SecureDirectoryStream<Path> parent, Path name, Path path,
                                   Consumer<Path> beforeDescend) throws IOException {
        beforeDescend.accept(path);
        // O_NOFOLLOW: a link put in the directory's place is not opened
        try (SecureDirectoryStream<Path> dir = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
            for (Path entry : dir) {
                Path child = entry.getFileName();
                BasicFileAttributes attrs = dir.getFileAttributeView(child, BasicFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS).readAttributes();
                if (attrs.isDirectory()) {
                    deleteTree(dir, child, path.resolve(child), beforeDescend);
                } else {
                    dir.deleteFile(child); // a file or a link: the entry itself goes, never what a link names
                }
            }
        }
        parent.deleteDirectory(name);
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
