package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Consumer;
import dev.kafko.CorruptLogException;
import dev.kafko.Kafko;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sealed segment cut short by something else while the log is open: a read through its mapping past the new end
 * faults, which the JVM turns into an {@link InternalError}; the consumer gets a {@link CorruptLogException} naming
 * the file instead, and the partition goes on taking sends.
 */
class CutUnderARunningLogTest {

    @TempDir
    Path dir;

    @Test
    void aReadPastTheEndOfASegmentCutUnderTheLogIsACorruptLogExceptionNamingTheFile() throws Exception {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("t", TopicConfig.builder().segmentBytes(1 << 20).build());
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 2000; i++) {
                producer.send(null, new byte[1000]).join();
            }
            Path segment = dir.resolve("t/0/00000000000000000000.log");
            try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
                ch.truncate(100);
            }
            try (Consumer consumer = kafko.consumer("t")) {
                consumer.seek(0, 500); // far past the first page of the file, which still maps
                Throwable failure = catchThrowable(() -> consumer.poll(Duration.ofMillis(100)));
                assertThat(failure).isInstanceOf(CorruptLogException.class)
                        .hasMessageContaining(segment.toString()).hasMessageContaining("holds less than the log wrote");
            }
            assertThat(producer.send(null, new byte[10]).join().offset()).isEqualTo(2000);
        }
    }
}
