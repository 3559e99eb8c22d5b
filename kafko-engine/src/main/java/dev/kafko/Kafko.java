package dev.kafko;

import dev.kafko.internal.broker.Broker;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * An open kafko data directory: the entry point of the engine. Thread-safe.
 *
 * <pre>{@code
 * try (Kafko kafko = Kafko.open(Path.of("data"))) {
 *     kafko.createTopic("orders", TopicConfig.builder().partitions(4).build());
 *     kafko.producer("orders").send(key, value).join();
 *     try (Consumer c = kafko.groupConsumer("orders", "billing")) {
 *         for (KafkoRecord r : c.poll(Duration.ofSeconds(1))) { ... }
 *         c.commit();
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #close()} drains every partition, fsyncs, stops every thread the instance started and
 * releases the directory lock. Calls after close fail with {@link KafkoClosedException}, except
 * {@link #dataDir()} and {@link #options()}, which describe the instance; arguments are checked first, so a
 * call with an illegal name or a negative timeout throws what it would before the close. A second close waits for the
 * first and throws what it threw; called inside kafko's own work (a send's callback, a
 * {@link KafkoObserver} method) while another close runs, it returns at once, and the first close called
 * from an observer, or from a send's callback while a {@link #deleteTopic} is in flight, returns at once
 * too, closing on a thread of its own (a deletion in flight ends before the directory lock is released). A close
 * that runs out of stack (called deep in a recursion) throws {@link StackOverflowError} and leaves the close to
 * a thread of its own, which a later close waits for.
 */
public interface Kafko extends AutoCloseable {

    /** Opens (creating if needed) a data directory with {@link KafkoOptions#DEFAULTS}. */
    static Kafko open(Path dataDir) {
        return open(dataDir, KafkoOptions.DEFAULTS);
    }

    /**
     * Opens (creating if needed) a data directory, recovers its topics and takes an exclusive lock
     * on it for the life of the instance.
     *
     * @throws AlreadyOpenException when the directory is open in this JVM or in another process
     * @throws InvalidTopicLayoutException when a topic directory is damaged
     * @throws KafkoStorageException when the directory cannot be created or read
     * @throws InvalidConfigException when {@code options.clock()} cannot tell the time in epoch milliseconds
     *     (a clock fixed at {@code Instant.MAX}); nothing is opened
     */
    static Kafko open(Path dataDir, KafkoOptions options) {
        return Broker.open(dataDir, options);
    }

    /**
     * Checks a topic or group name against the naming rule (Kafka's: 1 to 249 characters of
     * {@code [A-Za-z0-9._-]}, not {@code .} or {@code ..}; a topic not {@code .lock} either, the name of the
     * directory's lock file) without opening anything, for code that takes names long before it uses them
     * (configuration, annotations).
     *
     * @param kind {@code "topic"} or {@code "group"}, for the message
     * @throws NullPointerException when {@code name} is null (its message is {@code kind}: the name missing), or
     *     when {@code kind} is (its message is "kind")
     * @throws InvalidNameException naming the rule and the name
     */
    static void checkName(String kind, String name) {
        Broker.checkName(kind, name);
    }

    /** The data directory. */
    Path dataDir();

    KafkoOptions options();

    /** Creates a topic with {@link KafkoOptions#topicDefaults()}. */
    Topic createTopic(String name);

    /**
     * @throws TopicExistsException when the name is taken; or when a {@link #deleteTopic} of it is in flight and
     *     this is called from a send's callback or a {@link KafkoObserver} (elsewhere the call waits for it)
     * @throws InvalidNameException when the name breaks the naming rule (checked before any file-system call), or
     *     equals an existing topic's once {@code .} and {@code _} count as one character (Kafka refuses such a
     *     pair: {@code a.b} beside {@code a_b})
     * @throws InvalidTopicLayoutException when a directory of the name that is not a topic holds files (kafko
     *     deletes none of them)
     * @throws KafkoStorageException when the topic's files cannot be written
     */
    Topic createTopic(String name, TopicConfig config);

    /**
     * The topic named so, if it exists. Every call returns the same handle for as long as the topic
     * exists; a topic deleted and created again under its name has another one, so comparing handles
     * tells the two apart.
     *
     * @throws InvalidNameException when the name breaks the naming rule: no topic can have it
     */
    Optional<Topic> topic(String name);

    Set<String> topics();

    /**
     * Deletes a topic and its data; its producers and consumers fail afterwards. The topic leaves the
     * instance at once (a {@code createTopic} of its name waits until this returns); its partitions then
     * complete the sends they took, which may run send callbacks on this thread, and its files go.
     *
     * @throws UnknownTopicException when the topic does not exist
     * @throws IllegalStateException when called from a {@link KafkoObserver} on the thread that appends to one
     *     of the topic's partitions, which would wait for itself (nothing changes)
     */
    void deleteTopic(String name);

    /** @throws UnknownTopicException when the topic does not exist */
    Producer producer(String topic);

    /**
     * An anonymous consumer of every partition, starting at offset 0.
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    Consumer consumer(String topic);

    /**
     * An anonymous consumer with these options: of every partition, or only of
     * {@link ConsumerOptions#partitions()} when given, each starting at offset 0.
     *
     * @throws UnknownTopicException when the topic does not exist
     * @throws InvalidPartitionException naming the partition and the topic's partition count when the options
     *     give a partition the topic does not have
     */
    Consumer consumer(String topic, ConsumerOptions options);

    /**
     * A member of {@code group} that resumes from the group's committed offsets. It takes at once the partitions of
     * its share that no other member holds ({@link Consumer#assignment()} and {@link Consumer#position} report them
     * before the first poll, positioned at the group's commits, else where the reset policy starts; its
     * {@link ConsumerRebalanceListener#onPartitionsAssigned} is told of them in that poll); a partition another
     * member holds comes to it in a poll after that member's own next poll handed it over.
     *
     * @throws UnknownTopicException when the topic does not exist
     * @throws InvalidNameException when {@code group} breaks the naming rule
     */
    Consumer groupConsumer(String topic, String group);

    /**
     * As {@link #groupConsumer(String, String)}, with these options. With {@link ConsumerOptions#partitions()}
     * (Kafka's {@code assign}) the consumer is no member of {@code group}: it reads those partitions only, starting
     * each at the group's committed offset (else as the reset policy says), joins nothing (no member's partitions
     * change, {@link GroupInfo#members()} does not count it, no rebalance callback runs), and commits the group's
     * offsets of its partitions only while the group has no live member ({@link CommitFailedException} otherwise).
     *
     * @throws UnknownTopicException when the topic does not exist
     * @throws InvalidNameException when {@code group} breaks the naming rule
     * @throws InvalidPartitionException naming the partition and the topic's partition count when the options
     *     give a partition the topic does not have
     */
    Consumer groupConsumer(String topic, String group, ConsumerOptions options);

    /**
     * The groups with committed offsets or live members on this topic.
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    Set<String> groups(String topic);

    /**
     * Committed offsets, lag and members of a group.
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    GroupInfo groupInfo(String topic, String group);

    /**
     * Deletes a group's committed offsets of the topic, as Kafka's {@code Admin.deleteConsumerGroups} does for one
     * topic: {@link #groups} no longer lists it, and a consumer of its name made later starts as the reset policy says,
     * as a group never used does. The offsets file is gone when this returns, durably so under
     * {@link KafkoOptions#fsyncMetadata()}; a crash at any point leaves the group with its last commits or without
     * any. {@link KafkoObserver#onGroupDeleted} is told once. A consumer with fixed partitions
     * ({@link ConsumerOptions#partitions()}) is no member and does not stop the deletion: its next commit makes the
     * group anew, as Kafka's standalone consumers do.
     *
     * @return true when the group was deleted; false when the topic knows no such group (no member made it and it has
     *     no commits on disk), in which case nothing was made or changed
     * @throws GroupNotEmptyException when the group has live members in this instance (nothing changes): close them
     *     first
     * @throws UnknownTopicException when the topic does not exist
     * @throws InvalidNameException when {@code group} breaks the naming rule (checked before any file-system call), or
     *     differs from a known group of the topic only by case where the file system does not tell names apart by case
     *     (as {@link #groupInfo})
     * @throws KafkoStorageException when the offsets could not be deleted (nothing changes), or were deleted but the
     *     deletion could not be made durable (the group is gone in this instance; a crash may bring it back)
     */
    boolean deleteGroup(String topic, String group);

    /**
     * The lag of one partition for a group: what {@code groupInfo(topic, group).lag().get(partition)} says, without
     * the work over every partition of the topic that {@link #groupInfo} does (a metrics scrape reads each
     * partition's lag on its own).
     *
     * @throws UnknownTopicException when the topic does not exist
     * @throws InvalidPartitionException when the topic has no such partition
     * @throws InvalidNameException when {@code group} breaks the naming rule, or differs from a known group of the
     *     topic only by case where the file system does not tell names apart by case (as {@link #groupInfo})
     */
    long groupLag(String topic, String group, int partition);

    /** Idempotent; see the class comment. */
    @Override
    void close();
}
