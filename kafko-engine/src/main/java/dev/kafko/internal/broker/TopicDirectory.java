package dev.kafko.internal.broker;

import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Internal: the layout of topic directories: discovery on open, creation and deletion. Called under
 * the broker's admin lock (or before the broker is shared).
 *
 * <p>{@code topic.conf} is the commit point of a topic: it is written after the partition
 * directories on create and removed first on delete, so a directory without it is the leftover of
 * an interrupted create or delete. Such directories, files and directories with names that are
 * not topic names are stray: they are logged and skipped on open, never fatal. A directory with a
 * config that is damaged, or that lacks a partition directory its config names, is fatal:
 * {@link InvalidTopicLayoutException}.
 */
final class TopicDirectory {

    private static final System.Logger LOG = System.getLogger(TopicDirectory.class.getName());

    private TopicDirectory() {
    }

    /** Opens every topic below {@code dataDir}, handing each to {@code sink} as soon as it is open. */
    static void discover(Broker broker, Path dataDir, Consumer<TopicImpl> sink) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dataDir)) {
            ds.forEach(entries::add);
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
            if (!Files.exists(entry.resolve(FileNames.TOPIC_CONFIG_FILE))) {
                LOG.log(Level.WARNING, "ignoring directory " + entry + ": it has no " + FileNames.TOPIC_CONFIG_FILE
                        + " (left over from an interrupted create or delete?)");
                continue;
            }
            sink.accept(open(broker, entry, name));
        }
    }

    private static TopicImpl open(Broker broker, Path topicDir, String name) {
        TopicConfig config = TopicConfigFile.read(broker.context().io(), name, topicDir);
        for (int p = 0; p < config.partitions(); p++) {
            if (!Files.isDirectory(FileNames.partitionDir(topicDir, p))) {
                throw new InvalidTopicLayoutException("topic '" + name + "': " + topicDir + " lacks the directory of"
                        + " partition " + p + " (its config names " + config.partitions() + " partitions)");
            }
        }
        return new TopicImpl(name, topicDir, broker, config, openAll(broker, topicDir, name, config));
    }

    /** Creates a topic: partition logs first, the config last (the commit point). */
    static TopicImpl create(Broker broker, Path topicDir, String name, TopicConfig config) {
        FileIo io = broker.context().io();
        if (Files.exists(topicDir, LinkOption.NOFOLLOW_LINKS)) {
            if (!isLeftover(topicDir)) {
                throw new InvalidTopicLayoutException("topic '" + name + "': " + topicDir + " exists and is not a"
                        + " topic directory kafko left behind (it holds files kafko never writes there); move it away"
                        + " or pick another name");
            }
            LOG.log(Level.WARNING, "removing " + topicDir + ", left over from an interrupted create or delete");
            deleteTree(topicDir);
        }
        try {
            Files.createDirectories(topicDir);
        } catch (IOException e) {
            throw new KafkoStorageException("cannot create topic directory " + topicDir + ": " + e, e);
        }
        PartitionActor[] actors = openAll(broker, topicDir, name, config);
        try {
            boolean durable = broker.context().options().fsyncMetadata();
            TopicConfigFile.write(io, topicDir, config, durable);
            if (durable) {
                // the topic directory's own entry becomes durable with its parent
                io.fsyncDirectory(topicDir.getParent());
            }
        } catch (IOException | RuntimeException e) {
            closeAll(actors);
            deleteTree(topicDir);
            throw e instanceof RuntimeException re ? re
                    : new KafkoStorageException("cannot create topic '" + name + "' in " + topicDir + ": " + e, e);
        }
        return new TopicImpl(name, topicDir, broker, config, actors);
    }

    /**
     * Whether {@code topicDir} (a path no open topic holds) is what an interrupted or failed create or
     * delete leaves: a directory (not a link) holding only partition directories, the groups directory
     * and a config (a delete that failed to remove it) or a temporary one. Anything else is the user's,
     * and never deleted.
     */
    private static boolean isLeftover(Path topicDir) {
        if (!Files.isDirectory(topicDir, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(topicDir)) {
            for (Path entry : ds) {
                String n = entry.getFileName().toString();
                boolean ours = n.equals(FileNames.GROUPS_DIR) || n.equals(FileNames.TOPIC_CONFIG_FILE)
                        || n.equals(FileNames.TOPIC_CONFIG_FILE + FileNames.TMP_SUFFIX)
                        || (!n.isEmpty() && n.length() <= 10 && n.chars().allMatch(Character::isDigit));
                if (!ours) {
                    return false;
                }
            }
        } catch (IOException e) {
            throw new KafkoStorageException("cannot list " + topicDir + ": " + e, e);
        }
        return true;
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

    private static void closeAll(PartitionActor[] actors) {
        for (PartitionActor a : actors) {
            if (a != null) {
                try {
                    a.runCommand(CommandRequest.Kind.CLOSE);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "closing partition " + a.topic + "-" + a.partition + " failed: " + e);
                }
            }
        }
    }

    /** Deletes a closed topic: its config first (after that it is no topic), then everything else. */
    static void delete(FileIo io, Path topicDir, String name) {
        try {
            io.deleteIfExists(topicDir.resolve(FileNames.TOPIC_CONFIG_FILE));
            io.fsyncDirectory(topicDir);
        } catch (IOException e) {
            throw new KafkoStorageException("cannot delete topic '" + name + "' at " + topicDir + ": " + e, e);
        }
        deleteTree(topicDir);
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

    private static void deleteTree(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
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
}
