package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A close of 128 partitions or more starts {@code kafko-close-<n>} helpers. Starting one fails with an
 * {@link OutOfMemoryError} when no native thread can be had (found in a child JVM whose address space a
 * {@code ulimit -v} left no room for another thread's stack: "unable to create native thread" out of
 * {@code BrokerClose.closeAll}). That Error escaped the close before any partition was closed, past every step
 * B134 made run after a failure: no partition or group closed, the preparer left, and the directory still locked
 * (the next {@code Kafko.open} of it in the JVM: "already open in this JVM"). The close now goes on without the
 * helper: the caller's thread closes every partition.
 */
class CloseHelperStartFailureTest {

    @Test
    void aCloseThatCannotStartItsHelpersClosesEverythingItself(@TempDir Path dir) {
        BiFunction<Runnable, String, Thread> real = BrokerClose.helperStarter;
        BrokerClose.helperStarter = (work, name) -> {
            throw new OutOfMemoryError("unable to create native thread: possibly out of memory (injected)");
        };
        Throwable closeFailure = null;
        try {
            Kafko kafko = Kafko.open(dir);
            kafko.createTopic("t", TopicConfig.builder().partitions(128).build());
            Producer producer = kafko.producer("t");
            for (int p = 0; p < 128; p++) {
                producer.sendTo(p, null, ("r" + p).getBytes()).join();
            }
            kafko.groupConsumer("t", "g").close();
            try {
                kafko.close();
            } catch (RuntimeException | Error e) {
                closeFailure = e;
            }
        } finally {
            BrokerClose.helperStarter = real;
        }
        assertThat(closeFailure).as("the close's failure").isNull();
        List<String> read = new ArrayList<>();
        try (Kafko kafko = Kafko.open(dir); Consumer consumer = kafko.consumer("t")) {
            for (List<KafkoRecord> polled = consumer.poll(Duration.ofSeconds(1)); !polled.isEmpty();
                    polled = consumer.poll(Duration.ofMillis(200))) {
                polled.forEach(r -> read.add(new String(r.value())));
            }
        }
        assertThat(read).hasSize(128);
    }
}
