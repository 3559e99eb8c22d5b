package dev.kafko.internal.broker;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;

/**
 * Test-only: opens the package-private entry points of the broker layer to the reliability and
 * fuzz suites (dev.kafko.reliability, dev.kafko.fuzz). Each method calls exactly one production method.
 */
public final class BrokerBridge {

    private BrokerBridge() {
    }

    /** {@link Broker#open(Path, KafkoOptions, FileIo)}: an instance whose every file goes through {@code io}. */
    public static Kafko open(Path dataDir, KafkoOptions options, FileIo io) {
        return Broker.open(dataDir, options, io);
    }

    /** {@link Names#check}. */
    public static String checkName(String kind, String name) {
        return Names.check(kind, name);
    }

    /** {@link TopicConfigFile#read}. */
    public static TopicConfig readTopicConfig(FileIo io, String topic, Path topicDir) {
        return TopicConfigFile.read(io, topic, topicDir);
    }

    /** {@link GroupOffsetsFile#open} then close: replays (repairing a damaged file); the offsets, -1 where none. */
    public static long[] openOffsets(FileIo io, Path file, int partitions) {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(io, file, "fuzz", true)) {
            long[] out = new long[partitions];
            for (int p = 0; p < partitions; p++) {
                out[p] = f.committed(p);
            }
            return out;
        }
    }

    /** The groups {@code topic} of {@code kafko} keeps a coordinator for. */
    public static java.util.Set<String> keptGroups(Kafko kafko, String topic) {
        return java.util.Set.copyOf(((Broker) kafko).existing(topic).groups.keySet());
    }
}
