package dev.kafko.internal.broker;

import dev.kafko.CleanupPolicy;
import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.AtomicFiles;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.StorageErrors;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Internal: reads and writes a topic's {@link FileNames#TOPIC_CONFIG_FILE}. Stateless; any thread
 * (the broker serialises writes of one topic).
 *
 * <pre>
 * offset  size  field
 *      0     4  magic "KFTC"
 *      4     2  version (1)
 *      6     4  payload length n
 *     10     n  payload: UTF-8 lines "key=value\n" (partitions, compression, segmentBytes,
 *               segmentAge, retention, retentionBytes, fsync, maxRecordBytes, indexIntervalBytes,
 *               cleanupPolicy, minCompactionLag, deleteRetention, minCleanableDirtyRatio; the last four
 *               may be absent, from files written before compaction, and then take their defaults);
 *               durations are ISO-8601, "none" marks no retention, fsync as {@link FsyncPolicy#parse}
 *  10 + n     4  CRC32C of bytes [0, 10 + n)
 * </pre>
 * The file is replaced atomically ({@link AtomicFiles}): a crash leaves the old or the new config.
 */
final class TopicConfigFile {

    private static final System.Logger LOG = System.getLogger(TopicConfigFile.class.getName());
    /** What versions before ISO intervals wrote for an fsync interval under a millisecond. */
    private static final String OLD_SUB_MILLISECOND_INTERVAL = "interval:0ms";

    static final int MAGIC = 0x4B465443; // "KFTC"
    static final short VERSION = 1;
    private static final int HEADER = 10;
    private static final int MAX_PAYLOAD = 64 * 1024;

    private TopicConfigFile() {
    }

    static void write(FileIo io, Path topicDir, TopicConfig config) {
        write(io, topicDir, config, true);
    }

    /**
     * Writes the config; {@code durable} false skips the fsyncs (KafkoOptions.fsyncMetadata): the
     * rename still makes the file appear whole, but only until a machine crash.
     */
    static void write(FileIo io, Path topicDir, TopicConfig config, boolean durable) {
        Path file = topicDir.resolve(FileNames.TOPIC_CONFIG_FILE);
        byte[] payload = encode(config).getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(HEADER + payload.length + 4);
        buf.putInt(MAGIC).putShort(VERSION).putInt(payload.length).put(payload);
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        buf.flip();
        try {
            if (durable) {
                AtomicFiles.write(io, file, buf);
            } else {
                AtomicFiles.replace(io, file, buf, false);
            }
        } catch (IOException e) {
            throw new KafkoStorageException("cannot write topic config " + file + ": " + e, e);
        } catch (RuntimeException e) {
            throw StorageErrors.typed("write topic config", file, e);
        }
    }

    /** @throws InvalidTopicLayoutException when the file is unreadable, torn, of another version or out of range */
    static TopicConfig read(FileIo io, String topic, Path topicDir) {
        Path file = topicDir.resolve(FileNames.TOPIC_CONFIG_FILE);
        byte[] bytes;
        try (FileChannel ch = io.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > HEADER + MAX_PAYLOAD + 4) {
                throw layout(topic, file, "is " + size + " bytes, more than a config can be");
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // read it all
            }
            bytes = buf.array();
        } catch (IOException e) {
            throw new InvalidTopicLayoutException(topic, "cannot read " + file + ": " + e, e);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        if (bytes.length < HEADER + 4 || buf.getInt() != MAGIC) {
            throw layout(topic, file, "has no config header (magic)");
        }
        short version = buf.getShort();
        if (version != VERSION) {
            throw layout(topic, file, "has version " + version + ", this build reads version " + VERSION);
        }
        int length = buf.getInt();
        if (length < 0 || length != bytes.length - HEADER - 4) {
            throw layout(topic, file, "is torn: payload length " + length + " in a file of " + bytes.length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, HEADER + length);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, HEADER + length, 4).getInt()) {
            throw layout(topic, file, "fails its CRC check");
        }
        return decode(topic, file, new String(bytes, HEADER, length, StandardCharsets.UTF_8));
    }

    static String encode(TopicConfig c) {
        StringBuilder sb = new StringBuilder();
        sb.append("partitions=").append(c.partitions()).append('\n');
        sb.append("compression=").append(c.compression().name()).append('\n');
        sb.append("segmentBytes=").append(c.segmentBytes()).append('\n');
        sb.append("segmentAge=").append(c.segmentAge()).append('\n');
        sb.append("retention=").append(c.retention() == null ? "none" : c.retention().toString()).append('\n');
        sb.append("retentionBytes=").append(c.retentionBytes()).append('\n');
        sb.append("fsync=").append(c.fsync()).append('\n');
        sb.append("maxRecordBytes=").append(c.maxRecordBytes()).append('\n');
        sb.append("indexIntervalBytes=").append(c.indexIntervalBytes()).append('\n');
        sb.append("cleanupPolicy=").append(c.cleanupPolicy().name()).append('\n');
        sb.append("minCompactionLag=").append(c.minCompactionLag()).append('\n');
        sb.append("deleteRetention=").append(c.deleteRetention()).append('\n');
        sb.append("minCleanableDirtyRatio=").append(c.minCleanableDirtyRatio()).append('\n');
        return sb.toString();
    }

    private static TopicConfig decode(String topic, Path file, String text) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw layout(topic, file, "has an unreadable line '" + line + "'");
            }
            values.put(line.substring(0, eq), line.substring(eq + 1));
        }
        try {
            String retention = get(topic, file, values, "retention");
            TopicConfig d = TopicConfig.DEFAULTS;
            String policy = values.get("cleanupPolicy");
            String lag = values.get("minCompactionLag");
            String deleteRetention = values.get("deleteRetention");
            String ratio = values.get("minCleanableDirtyRatio");
            return TopicConfig.builder()
                    .partitions(Integer.parseInt(get(topic, file, values, "partitions")))
                    .compression(Compression.valueOf(get(topic, file, values, "compression")))
                    .segmentBytes(Long.parseLong(get(topic, file, values, "segmentBytes")))
                    .segmentAge(Duration.parse(get(topic, file, values, "segmentAge")))
                    .retention(retention.equals("none") ? null : Duration.parse(retention))
                    .retentionBytes(Long.parseLong(get(topic, file, values, "retentionBytes")))
                    .fsync(fsync(topic, file, get(topic, file, values, "fsync")))
                    .maxRecordBytes(maxRecordBytes(topic, file, get(topic, file, values, "maxRecordBytes")))
                    .indexIntervalBytes(Integer.parseInt(get(topic, file, values, "indexIntervalBytes")))
                    .cleanupPolicy(policy == null ? d.cleanupPolicy() : CleanupPolicy.valueOf(policy))
                    .minCompactionLag(lag == null ? d.minCompactionLag() : Duration.parse(lag))
                    .deleteRetention(deleteRetention == null ? d.deleteRetention() : Duration.parse(deleteRetention))
                    .minCleanableDirtyRatio(ratio == null ? d.minCleanableDirtyRatio() : Double.parseDouble(ratio))
                    .build();
        } catch (InvalidTopicLayoutException e) {
            throw e;
        } catch (KafkoException | IllegalArgumentException | java.time.format.DateTimeParseException e) {
            throw new InvalidTopicLayoutException(topic, file + " holds an invalid value: " + e.getMessage(), e);
        }
    }

    /**
     * The fsync policy stored; {@code interval:0ms} is how versions before ISO intervals stored an interval under a
     * millisecond (its milliseconds, rounded down), read as one millisecond rather than refused: the directory
     * must open after an upgrade.
     */
    private static FsyncPolicy fsync(String topic, Path file, String stored) {
        if (stored.trim().equalsIgnoreCase(OLD_SUB_MILLISECOND_INTERVAL)) {
            LOG.log(Level.WARNING, "topic '" + topic + "': " + file + " holds fsync=" + stored + ", which an older"
                    + " version wrote for an interval under a millisecond; it is read as interval:1ms");
            return FsyncPolicy.interval(Duration.ofMillis(1));
        }
        return FsyncPolicy.parse(stored);
    }

    /**
     * The largest record stored; a value under {@link TopicConfig#MIN_RECORD_BYTES}, which older versions accepted
     * (such a topic could take no record at all), is read as that minimum rather than refused.
     */
    private static int maxRecordBytes(String topic, Path file, String stored) {
        int value = Integer.parseInt(stored);
        if (value > 0 && value < TopicConfig.MIN_RECORD_BYTES) {
            LOG.log(Level.WARNING, "topic '" + topic + "': " + file + " holds maxRecordBytes=" + value + ", below the"
                    + " smallest record (" + TopicConfig.MIN_RECORD_BYTES + " bytes) that an older version accepted;"
                    + " it is read as " + TopicConfig.MIN_RECORD_BYTES);
            return TopicConfig.MIN_RECORD_BYTES;
        }
        return value;
    }

    private static String get(String topic, Path file, Map<String, String> values, String key) {
        String v = values.get(key);
        if (v == null) {
            throw layout(topic, file, "lacks the key '" + key + "'");
        }
        return v;
    }

    private static InvalidTopicLayoutException layout(String topic, Path file, String detail) {
        return new InvalidTopicLayoutException(topic, file + " " + detail);
    }
}
