package dev.kafko.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the two small files the broker parses: a group's offsets file (replay, and the repair
 * that rewrites a damaged one) and a topic's {@code topic.conf}. Neither may throw anything but a
 * {@link dev.kafko.KafkoException}; replayed offsets are never negative; a config that parses is
 * a valid {@link TopicConfig}. The fuzzer may ask for a valid header and CRC to reach the body.
 */
class SmallFilesFuzzTest {

    private static final Path DIR = FuzzFiles.newDirectory("kafko-fuzz-small");

    @AfterAll
    static void cleanUp() throws IOException {
        FuzzFiles.delete(DIR);
    }

    @FuzzTest(maxDuration = "30s")
    void offsetsFileReplaysOrRepairsAnyBytes(FuzzedDataProvider in) throws IOException {
        boolean header = in.consumeBoolean();
        byte[] body = in.consumeRemainingAsBytes();
        byte[] file = header ? ByteBuffer.allocate(8 + body.length).putInt(0x4B46474F).putInt(1).put(body).array()
                : body;
        Path path = DIR.resolve("groups").resolve("g.offsets");
        Files.createDirectories(path.getParent());
        Files.write(path, file);
        long[][] replays = new long[2][];
        Bounds.check(64L * file.length + (1 << 20),
                () -> replays[0] = BrokerBridge.openOffsets(FileIo.SYSTEM, path, 4));
        if (replays[0] != null) {
            for (long offset : replays[0]) {
                assertThat(offset).isGreaterThanOrEqualTo(-1);
            }
            // a repaired file replays to the same offsets
            replays[1] = BrokerBridge.openOffsets(FileIo.SYSTEM, path, 4);
            assertThat(replays[1]).isEqualTo(replays[0]);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void topicConfigParsesToAValidConfigOrFailsAsLayoutError(FuzzedDataProvider in) throws IOException {
        boolean frame = in.consumeBoolean();
        byte[] payload = in.consumeRemainingAsBytes();
        byte[] file = payload;
        if (frame) {
            ByteBuffer b = ByteBuffer.allocate(10 + payload.length + 4);
            b.putInt(0x4B465443).putShort((short) 1).putInt(payload.length).put(payload);
            CRC32C crc = new CRC32C();
            crc.update(b.array(), 0, b.position());
            b.putInt((int) crc.getValue());
            file = b.array();
        }
        Path topicDir = DIR.resolve("t");
        Files.createDirectories(topicDir);
        Files.write(topicDir.resolve("topic.conf"), file);
        long cap = 64L * file.length + (1 << 20);
        Bounds.check(cap, () -> {
            try {
                TopicConfig c = BrokerBridge.readTopicConfig(FileIo.SYSTEM, "t", topicDir);
                assertThat(c.toBuilder().build()).isEqualTo(c);
            } catch (InvalidTopicLayoutException expected) {
                // the one documented failure of a damaged config
            } catch (dev.kafko.KafkoException e) {
                throw new AssertionError("a damaged topic.conf must fail as InvalidTopicLayoutException", e);
            }
        });
    }
}
