package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CleanupPolicy;
import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import dev.kafko.internal.log.CapturedWarnings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The edges of {@link TopicConfigFile}: its size, header and payload checks, the fields it keeps, how it writes. */
class TopicConfigFileEdgesTest {

    @TempDir
    Path dir;

    @Test
    void compactionFieldsRoundTripAndAnOlderFileWithoutThemTakesTheirDefaults() throws Exception {
        TopicConfig c = TopicConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT_DELETE)
                .minCompactionLag(Duration.ofSeconds(42)).deleteRetention(Duration.ofMinutes(7))
                .minCleanableDirtyRatio(0.25).retention(null).build();
        TopicConfigFile.write(FileIo.SYSTEM, dir, c);
        TopicConfig read = TopicConfigFile.read(FileIo.SYSTEM, "t", dir);
        assertThat(read).isEqualTo(c);
        assertThat(read.retention()).isNull();

        StringBuilder older = new StringBuilder();
        for (String line : TopicConfigFile.encode(c).split("\n")) {
            if (!line.startsWith("cleanupPolicy=") && !line.startsWith("minCompactionLag=")
                    && !line.startsWith("deleteRetention=") && !line.startsWith("minCleanableDirtyRatio=")) {
                older.append(line).append('\n');
            }
        }
        writeRaw(older.toString());
        TopicConfig d = TopicConfig.DEFAULTS;
        TopicConfig fromOlder = TopicConfigFile.read(FileIo.SYSTEM, "t", dir);
        assertThat(fromOlder.cleanupPolicy()).isEqualTo(d.cleanupPolicy());
        assertThat(fromOlder.minCompactionLag()).isEqualTo(d.minCompactionLag());
        assertThat(fromOlder.deleteRetention()).isEqualTo(d.deleteRetention());
        assertThat(fromOlder.minCleanableDirtyRatio()).isEqualTo(d.minCleanableDirtyRatio());
    }

    @Test
    void aPayloadOfTheLargestSizeIsReadAndOneByteMoreIsRefusedBeforeItIsRead() throws Exception {
        String payload = TopicConfigFile.encode(TopicConfig.DEFAULTS);
        // empty lines are skipped: pad to exactly the largest payload
        String largest = payload + "\n".repeat(64 * 1024 - payload.length());
        writeRaw(largest);
        assertThat(Files.size(dir.resolve(FileNames.TOPIC_CONFIG_FILE))).isEqualTo(10 + 64 * 1024 + 4);
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir)).isEqualTo(TopicConfig.DEFAULTS);

        writeRaw(largest + "\n");
        assertLayout("t", "is " + (10 + 64 * 1024 + 5) + " bytes, more than a config can be");
    }

    @Test
    void theSmallestFrameIsReadAsAFrameAndAShorterFileHasNoHeader() throws Exception {
        // 14 bytes: a whole frame with an empty payload, which lacks every key
        writeRaw("");
        assertLayout("t", "lacks the key 'retention'");
        // 13 bytes starting with the magic
        Path f = dir.resolve(FileNames.TOPIC_CONFIG_FILE);
        byte[] b = Files.readAllBytes(f);
        Files.write(f, java.util.Arrays.copyOf(b, 13));
        assertLayout("t", "has no config header (magic)");
    }

    @Test
    void anotherVersionIsRefusedNamingBothVersions() throws Exception {
        writeFramed(TopicConfigFile.MAGIC, (short) 2, TopicConfigFile.encode(TopicConfig.DEFAULTS), null);
        assertLayout("t", "has version 2, this build reads version 1");
    }

    @Test
    void aLengthThatDisagreesWithTheFileSizeIsATornFile() throws Exception {
        String payload = TopicConfigFile.encode(TopicConfig.DEFAULTS);
        int n = payload.getBytes(StandardCharsets.UTF_8).length;
        writeFramed(TopicConfigFile.MAGIC, TopicConfigFile.VERSION, payload, n - 1);
        assertLayout("t", "is torn: payload length " + (n - 1) + " in a file of " + (10 + n + 4) + " bytes");
        writeFramed(TopicConfigFile.MAGIC, TopicConfigFile.VERSION, payload, n + 1);
        assertLayout("t", "is torn: payload length " + (n + 1));
        writeFramed(TopicConfigFile.MAGIC, TopicConfigFile.VERSION, payload, -1);
        assertLayout("t", "is torn: payload length -1");
    }

    @Test
    void aLineWithoutAKeyOrAKeyThatIsMissingOrAValueThatDoesNotParseIsALayoutError() throws Exception {
        String payload = TopicConfigFile.encode(TopicConfig.DEFAULTS);
        writeRaw(payload + "no equals sign\n");
        assertLayout("t", "has an unreadable line 'no equals sign'");
        writeRaw(payload + "=value\n");
        assertLayout("t", "has an unreadable line '=value'");
        writeRaw(payload.replaceAll("(?m)^segmentBytes=.*\n", ""));
        assertLayout("t", "lacks the key 'segmentBytes'");
        writeRaw(payload.replaceAll("(?m)^partitions=.*$", "partitions=three"));
        assertLayout("t", "holds an invalid value");
        writeRaw(payload.replaceAll("(?m)^segmentAge=.*$", "segmentAge=forever"));
        assertLayout("t", "holds an invalid value");
        writeRaw(payload.replaceAll("(?m)^cleanupPolicy=.*$", "cleanupPolicy=SOMETIMES"));
        assertLayout("t", "holds an invalid value");
    }

    @Test
    void aValueMayHoldAnEqualsSignAfterTheFirst() throws Exception {
        String payload = TopicConfigFile.encode(TopicConfig.DEFAULTS);
        writeRaw(payload.replaceAll("(?m)^compression=.*$", "compression=NONE=x"));
        // the value is everything after the first '=': "NONE=x", no compression of that name
        assertLayout("t", "holds an invalid value");
    }

    @Test
    void theSmallestRecordSizeIsKeptAndOnlyPositiveValuesUnderItAreRaised() throws Exception {
        String payload = TopicConfigFile.encode(TopicConfig.builder().maxRecordBytes(100).build());
        int min = TopicConfig.MIN_RECORD_BYTES;
        writeRaw(payload.replace("maxRecordBytes=100", "maxRecordBytes=" + min));
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir).maxRecordBytes()).isEqualTo(min);
        writeRaw(payload.replace("maxRecordBytes=100", "maxRecordBytes=1"));
        try (CapturedWarnings warnings = CapturedWarnings.of(TopicConfigFile.class)) {
            assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir).maxRecordBytes()).isEqualTo(min);
            assertThat(warnings.lines()).containsExactly("topic 't': " + dir.resolve(FileNames.TOPIC_CONFIG_FILE)
                    + " holds maxRecordBytes=1, below the smallest record (" + min + " bytes) that an older version"
                    + " accepted; it is read as " + min);
        }
        writeRaw(payload.replace("maxRecordBytes=100", "maxRecordBytes=-5"));
        assertLayout("t", "maxRecordBytes");
    }

    @Test
    void theOlderSubMillisecondIntervalIsRecognisedWhateverItsCaseAndSpacing() throws Exception {
        String payload = TopicConfigFile.encode(TopicConfig.DEFAULTS);
        writeRaw(payload.replaceAll("(?m)^fsync=.*$", "fsync= INTERVAL:0MS "));
        try (CapturedWarnings warnings = CapturedWarnings.of(TopicConfigFile.class)) {
            assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir).fsync())
                    .isEqualTo(dev.kafko.FsyncPolicy.interval(Duration.ofMillis(1)));
            assertThat(warnings.lines()).containsExactly("topic 't': " + dir.resolve(FileNames.TOPIC_CONFIG_FILE)
                    + " holds fsync= INTERVAL:0MS , which an older version wrote for an interval under a millisecond;"
                    + " it is read as interval:1ms");
        }
    }

    @Test
    void aDurableWriteFsyncsTheDirectoryAndANonDurableOneDoesNot() {
        List<Path> fsyncs = new ArrayList<>();
        FileIo io = new Delegating() {
            @Override
            public void fsyncDirectory(Path d) throws IOException {
                fsyncs.add(d);
                super.fsyncDirectory(d);
            }
        };
        TopicConfigFile.write(io, dir, TopicConfig.DEFAULTS, false);
        assertThat(fsyncs).isEmpty();
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir)).isEqualTo(TopicConfig.DEFAULTS);
        TopicConfigFile.write(io, dir, TopicConfig.builder().partitions(2).build());
        assertThat(fsyncs).containsExactly(dir);
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir).partitions()).isEqualTo(2);
    }

    @Test
    void aWriteThatFailsIsAStorageErrorNamingTheFileAndTheOldConfigStays() {
        TopicConfigFile.write(FileIo.SYSTEM, dir, TopicConfig.DEFAULTS);
        Path file = dir.resolve(FileNames.TOPIC_CONFIG_FILE);
        FileIo ioFailing = new Delegating() {
            @Override
            public void atomicMove(Path source, Path target) throws IOException {
                throw new IOException("injected: cannot move");
            }
        };
        assertThatThrownBy(() -> TopicConfigFile.write(ioFailing, dir, TopicConfig.builder().partitions(3).build()))
                .isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("cannot write topic config " + file).hasMessageContaining("injected");
        FileIo runtimeFailing = new Delegating() {
            @Override
            public void atomicMove(Path source, Path target) {
                throw new IllegalStateException("injected: channel broke");
            }
        };
        assertThatThrownBy(() -> TopicConfigFile.write(runtimeFailing, dir, TopicConfig.builder().partitions(3).build(),
                false))
                .isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("write topic config failed on " + file)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir)).isEqualTo(TopicConfig.DEFAULTS);
    }

    @Test
    void aConfigThatCannotBeReadIsALayoutErrorNamingTheTopic() {
        assertThatThrownBy(() -> TopicConfigFile.read(FileIo.SYSTEM, "gone", dir))
                .isInstanceOf(InvalidTopicLayoutException.class)
                .hasMessageContaining("cannot read " + dir.resolve(FileNames.TOPIC_CONFIG_FILE))
                .satisfies(e -> assertThat(((InvalidTopicLayoutException) e).topic()).isEqualTo("gone"));
    }

    private void assertLayout(String topic, String detail) {
        assertThatThrownBy(() -> TopicConfigFile.read(FileIo.SYSTEM, topic, dir))
                .isInstanceOf(InvalidTopicLayoutException.class)
                .hasMessageContaining(dir.resolve(FileNames.TOPIC_CONFIG_FILE).toString())
                .hasMessageContaining(detail)
                .satisfies(e -> assertThat(((InvalidTopicLayoutException) e).topic()).isEqualTo(topic));
    }

    private void writeRaw(String payload) throws IOException {
        writeFramed(TopicConfigFile.MAGIC, TopicConfigFile.VERSION, payload, null);
    }

    /** A config file of {@code payload}, its header's length {@code length} (the payload's when null), checksummed. */
    private void writeFramed(int magic, short version, String payload, Integer length) throws IOException {
        byte[] text = payload.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(10 + text.length + 4);
        b.putInt(magic).putShort(version).putInt(length == null ? text.length : length).put(text);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 10 + text.length);
        b.putInt((int) crc.getValue());
        Files.write(dir.resolve(FileNames.TOPIC_CONFIG_FILE), b.array());
    }

    /** Every call to the system's file I/O. */
    private static class Delegating extends WrappingFileIo {
        Delegating() {
            super((path, options, real) -> real);
        }
    }
}
