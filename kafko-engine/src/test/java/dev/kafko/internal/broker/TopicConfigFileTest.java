package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopicConfigFileTest {

    @TempDir
    Path dir;

    @Test
    void roundTripsEveryField() {
        TopicConfig c = TopicConfig.builder().partitions(7).compression(Compression.LZ4).segmentBytes(4096)
                .segmentAge(Duration.ofHours(3)).retention(Duration.ofMillis(1500)).retentionBytes(1 << 20)
                .fsync(FsyncPolicy.interval(Duration.ofMillis(250))).maxRecordBytes(777).indexIntervalBytes(128)
                .build();
        TopicConfigFile.write(FileIo.SYSTEM, dir, c);
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir)).isEqualTo(c);

        TopicConfigFile.write(FileIo.SYSTEM, dir, TopicConfig.DEFAULTS);
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir)).isEqualTo(TopicConfig.DEFAULTS);
        TopicConfigFile.write(FileIo.SYSTEM, dir, TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
        assertThat(TopicConfigFile.read(FileIo.SYSTEM, "t", dir).fsync()).isEqualTo(FsyncPolicy.EVERY_BATCH);
    }

    @Test
    void flippedByteFailsTheCrcAndNamesTopicAndFile() throws Exception {
        TopicConfigFile.write(FileIo.SYSTEM, dir, TopicConfig.DEFAULTS);
        Path f = dir.resolve(FileNames.TOPIC_CONFIG_FILE);
        byte[] b = Files.readAllBytes(f);
        b[14] ^= 0x01;
        Files.write(f, b);
        assertThatThrownBy(() -> TopicConfigFile.read(FileIo.SYSTEM, "orders", dir))
                .isInstanceOf(InvalidTopicLayoutException.class)
                .hasMessageContaining("orders").hasMessageContaining(f.toString()).hasMessageContaining("CRC");
    }

    @Test
    void truncatedOrForeignFilesAreLayoutErrors() throws Exception {
        TopicConfigFile.write(FileIo.SYSTEM, dir, TopicConfig.DEFAULTS);
        Path f = dir.resolve(FileNames.TOPIC_CONFIG_FILE);
        byte[] b = Files.readAllBytes(f);
        Files.write(f, java.util.Arrays.copyOf(b, b.length - 5));
        assertThatThrownBy(() -> TopicConfigFile.read(FileIo.SYSTEM, "t", dir)).isInstanceOf(InvalidTopicLayoutException.class);
        Files.writeString(f, "partitions=3\n");
        assertThatThrownBy(() -> TopicConfigFile.read(FileIo.SYSTEM, "t", dir)).isInstanceOf(InvalidTopicLayoutException.class)
                .hasMessageContaining("magic");
    }

    @Test
    void valuesThatOlderVersionsWroteAndThisOneRefusesAreReadAsTheNearestItTakes() throws Exception {
        // an older version accepted a maxRecordBytes under the smallest record, and stored an fsync interval under
        // a millisecond as its milliseconds rounded down: the directory must still open after an upgrade
        String current = TopicConfigFile.encode(TopicConfig.builder().maxRecordBytes(100)
                .fsync(FsyncPolicy.interval(Duration.ofMillis(5))).build());
        writeRaw(current.replace("maxRecordBytes=100", "maxRecordBytes=7").replace("fsync=interval:5ms",
                "fsync=interval:0ms"));
        TopicConfig read = TopicConfigFile.read(FileIo.SYSTEM, "t", dir);
        assertThat(read.maxRecordBytes()).isEqualTo(TopicConfig.MIN_RECORD_BYTES);
        assertThat(read.fsync()).isEqualTo(FsyncPolicy.interval(Duration.ofMillis(1)));

        // what no version wrote stays refused
        writeRaw(current.replace("maxRecordBytes=100", "maxRecordBytes=0"));
        assertThatThrownBy(() -> TopicConfigFile.read(FileIo.SYSTEM, "t", dir))
                .isInstanceOf(InvalidTopicLayoutException.class).hasMessageContaining("maxRecordBytes");
    }

    /** A config file holding {@code payload}, framed and checksummed as {@link TopicConfigFile#write} frames it. */
    private void writeRaw(String payload) throws Exception {
        byte[] text = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(10 + text.length + 4);
        b.putInt(TopicConfigFile.MAGIC).putShort(TopicConfigFile.VERSION).putInt(text.length).put(text);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b.array(), 0, 10 + text.length);
        b.putInt((int) crc.getValue());
        Files.write(dir.resolve(FileNames.TOPIC_CONFIG_FILE), b.array());
    }
}
