package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.CorruptLogException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the public API: a sealed segment whose fourth frame was renumbered and its CRC recomputed
 * (damage a CRC cannot see). The open reports the offsets from that frame to the next segment lost,
 * and a consumer reading from the start gets the offsets before it, then {@link CorruptLogException}
 * for the next one: never the renumbered frame's offset between two others, never an offset that goes back.
 */
class RenumberedFrameConsumerTest {

    private static final int VALUE = 100;

    @TempDir
    Path dir;

    @Test
    void aConsumerGetsTheOffsetsBeforeTheRenumberedFrameThenCorruptLogException() throws IOException {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(4096).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 80; i++) {
                p.send(null, Logs.value(i, VALUE)).join(); // a frame each
            }
        }
        Path partition = dir.resolve("t").resolve("0");
        Path first = FileNames.segmentFile(partition, 0);
        byte[] b = Files.readAllBytes(first);
        int pos = FrameFormat.SEGMENT_HEADER_SIZE;
        for (int frame = 0; frame < 3; frame++) {
            pos += FrameFormat.getInt(b, pos + FrameFormat.LENGTH_OFFSET);
        }
        int len = FrameFormat.getInt(b, pos + FrameFormat.LENGTH_OFFSET);
        byte[] renumbered = Arrays.copyOfRange(b, pos, pos + len);
        assertThat(FrameFormat.getLong(renumbered, FrameFormat.BASE_OFFSET_OFFSET)).isEqualTo(3);
        FrameFormat.putLong(renumbered, FrameFormat.BASE_OFFSET_OFFSET, 1000);
        LogBridge.fixCrc(renumbered);
        System.arraycopy(renumbered, 0, b, pos, len);
        Files.write(first, b);
        Files.delete(FileNames.indexFile(partition, 0));
        Files.delete(FileNames.timeIndexFile(partition, 0));

        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
            List<Long> offsets = new ArrayList<>();
            assertThatThrownBy(() -> {
                for (int polls = 0; polls < 100; polls++) {
                    for (KafkoRecord r : c.poll(Duration.ofMillis(10))) {
                        offsets.add(r.offset());
                    }
                }
            }).isInstanceOf(CorruptLogException.class).hasMessageContaining(first.toString());
            assertThat(offsets).containsExactly(0L, 1L, 2L);
        }
    }
}
