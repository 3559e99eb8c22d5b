package dev.kafko.internal.broker;

import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.StorageErrors;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.AppendSizes;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the layout of topic directories: discovery on open, creation and deletion. Called under
 * the broker's admin lock (or before the broker is shared).
 *
 * <p>{@code topic.conf} is the commit point of a topic: it is written after the partition
 * directories on create, and renamed to {@code topic.conf.deleted} first on delete (that file is
 * removed last). So a directory without a config is the leftover of an interrupted create (its
 * segments hold no record) or of an interrupted delete (it has the renamed config), or a topic
 * whose config was lost: that one holds records or committed offsets, and it is never removed.
 * Such directories, files and directories with names that are not topic names are stray: they are
 * logged and skipped on open, never fatal. A directory with a config that is damaged, or that lacks
 * a partition directory its config names, is fatal: {@link InvalidTopicLayoutException}.
 */
final class TopicDirectory {

    private static final System.Logger LOG = System.getLogger(TopicDirectory.class.getName());

    private TopicDirectory() {
    }

    /** Opens every topic below {@code dataDir}, putting each into {@code opened} as soon as it is open. */
    static void discover(Broker broker, Path dataDir, Map<String, TopicImpl> opened) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dataDir)) {
            for (Path entry : ds) {
                entries.add(entry);
            }
        } catch (IOException e) {
            throw new KafkoStorageException("cannot list data directory " + dataDir + ": " + e, e);
        }
        entries.sort(null);
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (name.equals(FileNames.LOCK_FILE)) {
                continue;
            }
            if (!Files.isDirectory(entry)) {
                LOG.log(Level.WARNING, "ignoring stray file " + entry + " in the data directory");
                continue;
            }
            if (!Names.isValid(name)) {
                LOG.log(Level.WARNING, "ignoring directory " + entry + ": '" + name + "' is not a valid topic name");
                continue;
            }
            if (!hasConfig(entry)) {
                if (!finishedDelete(entry, name)) {
                    LOG.log(Level.WARNING, "ignoring directory " + entry + ": " + withoutConfig(entry));
                }
                continue;
            }
            TopicImpl topic = open(broker, entry, name);
            opened.put(topic.name, topic);
            GroupCoordinator.moveCommitsPastTheEnd(topic);
        }
    }

    /**
     * Whether the topic directory {@code dir} holds its config file.
     *
     * @throws KafkoStorageException when that cannot be told (the directory cannot be searched: its
     *     permissions), rather than taking the topic for a stray directory and leaving it out
     */
    private static boolean hasConfig(Path dir) {
        Path config = dir.resolve(FileNames.TOPIC_CONFIG_FILE);
        try {
            Files.readAttributes(config, BasicFileAttributes.class);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new KafkoStorageException("cannot read topic directory " + dir + " (looking for " + config
                    + "): " + e, e);
        }
    }

    /**
     * Removes {@code dir} when it is what an interrupted delete left (its config renamed, the commit
     * point, and nothing but kafko's files): the delete was decided, and its data must not stay on disk
     * until the name is created again. False when it is something else, or could not be removed (a
     * stray directory is never fatal on open; the next open tries again).
     */
    private static boolean finishedDelete(Path dir, String name) {
        Path marker = dir.resolve(FileNames.TOPIC_DELETED_MARKER);
        try {
            if (!Files.exists(marker, LinkOption.NOFOLLOW_LINKS) || !isLeftover(dir)) {
                return false;
            }
            deleteTree(dir, marker);
        } catch (KafkoStorageException e) {
            LOG.log(Level.WARNING, "could not finish the interrupted delete of topic '" + name + "' (" + dir
                    + "); the next open tries again: " + e);
            return true;
        }
        LOG.log(Level.INFO, "finished the interrupted delete of topic '" + name + "': removed " + dir);
        return true;
    }

    private static TopicImpl open(Broker broker, Path topicDir, String name) {
        TopicConfig config = TopicConfigFile.read(broker.context().io(), name, topicDir);
        for (int p = 0; p < config.partitions(); p++) {
            Path dir = FileNames.partitionDir(topicDir, p);
            if (!Files.isDirectory(dir)) {
                throw new InvalidTopicLayoutException(name, topicDir + " lacks the directory of"
                        + " partition " + p + " (its config names " + config.partitions() + " partitions)");
            }
            if (!holdsASegment(dir)) {
                // a partition's directory has a segment from its creation on: something emptied it
                LOG.log(Level.WARNING, "topic '" + name + "' partition " + p + ": " + dir + " holds no segment file;"
                        + " the partition starts again, empty, at offset 0 (any records it held are lost)");
            }
        }
        return new TopicImpl(name, topicDir, broker, config, openAll(broker, topicDir, name, config));
    }

    /**
     * {@link FileIo#heldUnderAnotherName} of {@code dir.resolve(name)}: the other name under which the file system
     * finds it (where names are not told apart by case), or {@code null}.
     *
     * @throws KafkoStorageException when {@code dir} cannot be listed
     */
    static @Nullable String heldUnderAnotherName(FileIo io, Path dir, String name) {
        try {
            return io.heldUnderAnotherName(dir.resolve(name));
        } catch (IOException e) {
            throw new KafkoStorageException("cannot list " + dir + ": " + e, e);
        } catch (RuntimeException e) {
            throw StorageErrors.typed("list " + dir, dir, e);
        }
    }

    /**
     * Whether the file system of {@code topicDir} (an open topic's directory, which holds its config) tells names
     * apart by case: it does unless {@code TOPIC.CONF} reaches {@code topic.conf}.
     */
    static boolean foldsCase(FileIo io, Path topicDir) {
        return heldUnderAnotherName(io, topicDir, FileNames.TOPIC_CONFIG_FILE.toUpperCase(Locale.ROOT)) != null;
    }

    /** Whether {@code partitionDir} holds a segment file (the listing stops at the first one). */
    private static boolean holdsASegment(Path partitionDir) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(partitionDir,
                f -> FileNames.isSegmentFile(f.getFileName().toString()))) {
            return ds.iterator().hasNext();
        } catch (IOException e) {
            throw new KafkoStorageException("cannot list " + partitionDir + ": " + e, e);
        }
    }

    /** Creates a topic: partition logs first, the config last (the commit point). */
    static TopicImpl create(Broker broker, Path topicDir, String name, TopicConfig config) {
        FileIo io = broker.context().io();
        if (Files.exists(topicDir, LinkOption.NOFOLLOW_LINKS)) {
            if (!isLeftover(topicDir)) {
                throw new InvalidTopicLayoutException(name, topicDir + " exists and is not a"
                        + " topic directory kafko left behind (it holds files kafko never writes there); move it away"
                        + " or pick another name");
            }
            String data = Files.exists(topicDir.resolve(FileNames.TOPIC_DELETED_MARKER)) ? null : dataIn(topicDir);
            if (data != null) {
                // no interrupted create left this (it writes no record) and no delete was started: a lost config
                throw new InvalidTopicLayoutException(name, Files.exists(topicDir.resolve(FileNames.TOPIC_CONFIG_FILE))
                        ? topicDir + " holds data (" + data + ") and a " + FileNames.TOPIC_CONFIG_FILE + " this"
                                + " instance did not open; reopen to use the topic, or move the directory away"
                        : topicDir + " holds data (" + data + ") but no " + FileNames.TOPIC_CONFIG_FILE + "; restore "
                                + FileNames.TOPIC_CONFIG_FILE + " and reopen, or move the directory away");
            }
            LOG.log(Level.WARNING, "removing " + topicDir + ", left over from an interrupted create or delete");
            // a deleted topic's marker goes last, as in the delete itself: a removal that stops half way (an I/O
            // error, a kill) must leave a delete to finish, not records without a config, which look like a topic
            // that lost its config and block the name
            deleteTree(topicDir, topicDir.resolve(FileNames.TOPIC_DELETED_MARKER));
        }
        try {
            Files.createDirectories(topicDir);
        } catch (IOException e) {
            throw new KafkoStorageException("cannot create topic directory " + topicDir + ": " + e, e);
        }
        PartitionActor[] actors;
        try {
            actors = openAll(broker, topicDir, name, config);
        } catch (RuntimeException e) {
            // the partitions opened were closed: what they left is a create that never happened
            deleteTreeQuietly(topicDir, e);
            throw StorageErrors.typed("create topic '" + name + "'", topicDir, e);
        } catch (Error e) {
            deleteTreeQuietly(topicDir, e);
            throw e;
        }
        try {
            boolean durable = broker.context().options().fsyncMetadata();
            TopicConfigFile.write(io, topicDir, config, durable);
            if (durable) {
                // the topic directory's own entry becomes durable with its parent
                io.fsyncDirectory(topicDir.getParent());
            }
        } catch (IOException | RuntimeException | Error e) {
            // an Error too: no partition of a topic that was never created keeps its files open
            closeAll(actors);
            deleteTreeQuietly(topicDir, e);
            if (e instanceof Error err) {
                throw err;
            }
            throw e instanceof RuntimeException re ? StorageErrors.typed("create topic '" + name + "'", topicDir, re)
                    : new KafkoStorageException("cannot create topic '" + name + "' in " + topicDir + ": " + e, e);
        }
        return new TopicImpl(name, topicDir, broker, config, actors);
    }

    /**
     * Whether {@code topicDir} (a path no open topic holds) is what an interrupted or failed create or
     * delete leaves: a directory (not a link) holding only a config, a temporary or a deleted one (a regular
     * file), partition directories that hold only files kafko writes there, and a groups directory
     * that holds only group directories with offsets files (or offsets files of the older layout).
     * Anything else, at any depth, is the user's, and never deleted.
     */
    private static boolean isLeftover(Path topicDir) {
        return onlyEntries(topicDir, entry -> {
            String n = entry.getFileName().toString();
            if (n.equals(FileNames.TOPIC_CONFIG_FILE) || n.equals(FileNames.TOPIC_CONFIG_FILE + FileNames.TMP_SUFFIX)
                    || n.equals(FileNames.TOPIC_DELETED_MARKER)) {
                return Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS);
            }
            if (n.equals(FileNames.GROUPS_DIR)) {
                return onlyEntries(entry, TopicDirectory::isGroupEntry);
            }
            return isPartitionNumber(n) && onlyEntries(entry, TopicDirectory::isPartitionFile);
        });
    }

    /**
     * What in {@code topicDir} (a leftover by {@link #isLeftover}) no interrupted create could have
     * written, or {@code null} when there is nothing such: a segment file longer than its header (a
     * create appends nothing) or a group's offsets. Only directory listings and file sizes are read.
     */
    private static @Nullable String dataIn(Path topicDir) {
        if (Files.exists(topicDir.resolve(FileNames.GROUPS_DIR))) {
            Set<String> groups = groupsOnDisk(topicDir);
            if (!groups.isEmpty()) {
                return "committed offsets of group '" + groups.iterator().next() + "' in "
                        + topicDir.resolve(FileNames.GROUPS_DIR);
            }
        }
        try (DirectoryStream<Path> partitions = Files.newDirectoryStream(topicDir, Files::isDirectory)) {
            for (Path p : partitions) {
                if (p.getFileName().toString().equals(FileNames.GROUPS_DIR)) {
                    continue;
                }
                try (DirectoryStream<Path> files = Files.newDirectoryStream(p)) {
                    for (Path f : files) {
                        long size = Files.size(f);
                        if (FileNames.isSegmentFile(f.getFileName().toString())
                                && size > AppendSizes.EMPTY_SEGMENT_BYTES) {
                            return f + " holds " + size + " bytes";
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new KafkoStorageException("cannot list " + topicDir + ": " + e, e);
        }
        return null;
    }

    /** Why a directory with a topic's name but no config is skipped on open, for the warning. */
    private static String withoutConfig(Path dir) {
        if (Files.exists(dir.resolve(FileNames.TOPIC_DELETED_MARKER))) {
            return "a delete of its topic was interrupted, and the directory holds files kafko never writes there"
                    + " (so it was not removed); move them away and reopen, or remove the directory";
        }
        boolean leftover;
        String data;
        try {
            leftover = isLeftover(dir);
            data = leftover ? dataIn(dir) : null;
        } catch (KafkoStorageException e) {
            // a stray directory is never fatal on open
            return "it has no " + FileNames.TOPIC_CONFIG_FILE + " and cannot be read (" + e.getMessage()
                    + "), so it is left alone";
        }
        if (!leftover) {
            // the user's: a create refuses it (see create), so neither deleting it nor creating the topic is advice
            return "it has no " + FileNames.TOPIC_CONFIG_FILE + " and is not a topic directory kafko left behind (it"
                    + " holds files kafko never writes there), so it is left alone; creating a topic of this name is"
                    + " refused until it is moved away";
        }
        if (data != null) {
            return "it holds data (" + data + ") but no " + FileNames.TOPIC_CONFIG_FILE + ", so its topic is not"
                    + " opened; restore " + FileNames.TOPIC_CONFIG_FILE + " and reopen, or move the directory away"
                    + " (creating the topic is refused until then)";
        }
        return "it has no " + FileNames.TOPIC_CONFIG_FILE + " and holds no data (left over from an interrupted create or"
                + " delete?): delete the directory, or create the topic, which replaces it";
    }

    /** Whether {@code dir} is a directory (not a link) each of whose entries passes {@code ours}. */
    private static boolean onlyEntries(Path dir, Predicate<Path> ours) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path entry : ds) {
                if (!ours.test(entry)) {
                    return false;
                }
            }
        } catch (IOException e) {
            throw new KafkoStorageException("cannot list " + dir + ": " + e, e);
        }
        return true;
    }

    private static boolean isPartitionNumber(String n) {
        return !n.isEmpty() && n.length() <= 10 && FileNames.isAsciiDigits(n, n.length());
    }

    /**
     * Whether {@code file} is a regular file named like one kafko writes in a partition directory: a
     * segment, index or time index, the clean-shutdown marker, or a temporary or deleted copy of one.
     */
    private static boolean isPartitionFile(Path file) {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        String n = file.getFileName().toString();
        if (n.endsWith(FileNames.DELETED_SUFFIX)) {
            n = n.substring(0, n.length() - FileNames.DELETED_SUFFIX.length());
        } else {
            n = stripTmp(n);
        }
        if (n.equals(FileNames.CLEAN_SHUTDOWN_FILE)) {
            return true;
        }
        int dot = n.indexOf('.');
        if (dot != 20 || !FileNames.startsWithOffset(n)) {
            return false;
        }
        String suffix = n.substring(dot);
        return suffix.equals(FileNames.LOG_SUFFIX) || suffix.equals(FileNames.INDEX_SUFFIX)
                || suffix.equals(FileNames.TIME_INDEX_SUFFIX);
    }

    /**
     * Whether {@code entry} of a groups directory is a group's: a directory holding only its offsets
     * file (or that file's temporary copy), or an offsets file of the older layout, {@code <group>.offsets}.
     */
    private static boolean isGroupEntry(Path entry) {
        if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
            return onlyEntries(entry, f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    && stripTmp(f.getFileName().toString()).equals(FileNames.OFFSETS_FILE));
        }
        return Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)
                && stripTmp(entry.getFileName().toString()).endsWith(FileNames.OFFSETS_SUFFIX);
    }

    private static String stripTmp(String n) {
        return n.endsWith(FileNames.TMP_SUFFIX) ? n.substring(0, n.length() - FileNames.TMP_SUFFIX.length()) : n;
    }

    private static PartitionActor[] openAll(Broker broker, Path topicDir, String name, TopicConfig config) {
        PartitionActor[] actors = new PartitionActor[config.partitions()];
        try {
            for (int p = 0; p < actors.length; p++) {
                actors[p] = broker.openPartition(name, topicDir, p, config);
            }
        } catch (RuntimeException | Error e) {
            closeAll(actors);
            throw e;
        }
        return actors;
    }

    static void closeAll(PartitionActor[] actors) {
        for (PartitionActor a : actors) {
            if (a != null) {
                try {
                    a.commands.closeLog();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "closing partition " + a.topic + "-" + a.partition + " failed: " + e);
                }
            }
        }
    }

    /**
     * Deletes a closed topic: its config is renamed first (after that it is no topic, and the
     * directory says it is being deleted), then everything else, the renamed config last.
     */
    static void delete(FileIo io, Path topicDir, String name) {
        Path marker = topicDir.resolve(FileNames.TOPIC_DELETED_MARKER);
        try {
            // the commit point: a rename is atomic, so a crash leaves a topic or a deleted one, never a lost config
            io.atomicMove(topicDir.resolve(FileNames.TOPIC_CONFIG_FILE), marker);
            io.fsyncDirectory(topicDir);
        } catch (IOException e) {
            throw new KafkoStorageException("cannot delete topic '" + name + "' at " + topicDir + ": " + e, e);
        } catch (RuntimeException e) {
            throw StorageErrors.typed("delete topic '" + name + "'", topicDir, e);
        }
        // the marker goes last: until then a crash leaves a directory that says it is a deleted topic's
        deleteTree(topicDir, marker);
    }

    /** The groups that have an offsets file. */
    static Set<String> groupsOnDisk(Path topicDir) {
        Set<String> out = new TreeSet<>();
        Path dir = topicDir.resolve(FileNames.GROUPS_DIR);
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path f : ds) {
                String n = f.getFileName().toString();
                if (Files.isRegularFile(f.resolve(FileNames.OFFSETS_FILE)) && Names.isValidGroup(n)) {
                    out.add(n);
                } else if (n.endsWith(FileNames.OFFSETS_SUFFIX) && Files.isRegularFile(f)) {
                    // the layout before each group had a directory
                    String group = n.substring(0, n.length() - FileNames.OFFSETS_SUFFIX.length());
                    if (Names.isValidGroup(group)) {
                        out.add(group);
                    }
                }
            }
        } catch (IOException e) {
            throw new KafkoStorageException("cannot list groups in " + dir + ": " + e, e);
        }
        return out;
    }

    /** Deletes {@code root} and everything below it, {@code last} (a file in {@code root}) after the rest. */
    private static void deleteTree(Path root, @Nullable Path last) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    if (!file.equals(last)) {
                        Files.deleteIfExists(file);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    if (dir.equals(root) && last != null) {
                        Files.deleteIfExists(last);
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException e) {
            // already gone
        } catch (IOException e) {
            throw new KafkoStorageException("cannot delete " + root + ": " + e, e);
        }
    }

    /** {@link #deleteTree}, adding a failure to {@code primary} instead of replacing it. */
    private static void deleteTreeQuietly(Path root, Throwable primary) {
        try {
            deleteTree(root, null);
        } catch (RuntimeException e) {
            primary.addSuppressed(e);
        }
    }
}
