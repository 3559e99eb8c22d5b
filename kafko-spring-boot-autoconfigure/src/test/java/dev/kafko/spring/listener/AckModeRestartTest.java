package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Closes the context mid-stream and starts a new one on the same data directory: nothing is lost,
 * and records come twice only where the ack mode allows it.
 */
class AckModeRestartTest {

    static final int RECORDS = 240;
    static final int ACK_EVERY = 10;

    /** "partition@offset" of every invocation, by run. */
    static final List<String> FIRST = new CopyOnWriteArrayList<>();
    static final List<String> SECOND = new CopyOnWriteArrayList<>();
    /** Offsets the listener acknowledged in the first run (manual modes). */
    static final Set<String> ACKED_FIRST = java.util.concurrent.ConcurrentHashMap.newKeySet();
    static volatile List<String> current = FIRST;
    static volatile CountDownLatch halfway = new CountDownLatch(1);

    @ParameterizedTest
    @EnumSource(AckMode.class)
    void closingMidStreamLosesNothingAndDuplicatesOnlyWhatTheAckModeAllows(AckMode mode, @TempDir Path dir)
            throws Exception {
        FIRST.clear();
        SECOND.clear();
        ACKED_FIRST.clear();
        current = FIRST;
        halfway = new CountDownLatch(1);
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(mode.isManual() ? AcknowledgingSlowListener.class : SlowListener.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.stream.partitions=3",
                        "kafko.listener.ack-mode=" + mode.name().toLowerCase().replace('_', '-'),
                        "kafko.listener.max-poll-records=20");
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int i = 0; i < RECORDS; i++) {
                template.send("stream", i % 3, null, "v" + i);
            }
            template.send("stream", 0, null, "last").join();
            assertThat(halfway.await(20, TimeUnit.SECONDS)).isTrue();
        }); // closes while the listener is busy
        assertThat(FIRST.size()).as("first run stopped mid-stream").isLessThan(RECORDS + 1);

        current = SECOND;
        runner.run(context -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30)));

        Set<String> all = new HashSet<>(FIRST);
        all.addAll(SECOND);
        assertThat(all).as("nothing lost").hasSize(RECORDS + 1);
        assertThat(new HashSet<>(FIRST)).as("no duplicates within a run").hasSize(FIRST.size());
        assertThat(new HashSet<>(SECOND)).hasSize(SECOND.size());
        List<String> duplicates = new ArrayList<>(SECOND);
        duplicates.retainAll(FIRST);
        if (mode.isManual()) {
            Map<Integer, Long> lastAcked = new HashMap<>();
            for (String a : ACKED_FIRST) {
                lastAcked.merge(partition(a), offset(a), Math::max);
            }
            for (String d : duplicates) {
                assertThat(offset(d)).as("duplicate %s was never acknowledged", d)
                        .isGreaterThan(lastAcked.getOrDefault(partition(d), -1L));
            }
        } else {
            assertThat(duplicates).as("record and batch modes commit what was processed before leaving").isEmpty();
        }
    }

    private static int partition(String pos) {
        return Integer.parseInt(pos.substring(0, pos.indexOf('@')));
    }

    private static long offset(String pos) {
        return Long.parseLong(pos.substring(pos.indexOf('@') + 1));
    }

    /** For the automatic ack modes, which refuse an Acknowledgment parameter. */
    static class SlowListener {
        @KafkoListener(id = "slow", topics = "stream")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                @Header(KafkoHeaders.OFFSET) long offset) throws InterruptedException {
            received(partition + "@" + offset, null);
        }
    }

    static class AcknowledgingSlowListener {
        @KafkoListener(id = "slow", topics = "stream")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                @Header(KafkoHeaders.OFFSET) long offset, Acknowledgment ack) throws InterruptedException {
            received(partition + "@" + offset, offset % ACK_EVERY == ACK_EVERY - 1 ? ack : null);
        }
    }

    private static void received(String pos, @Nullable Acknowledgment ack) throws InterruptedException {
        current.add(pos);
        if (ack != null) {
            ack.acknowledge();
            if (current == FIRST) {
                ACKED_FIRST.add(pos);
            }
        }
        if (FIRST.size() == RECORDS / 4) {
            halfway.countDown();
        }
        Thread.sleep(1); // a listener that takes time, so the close lands mid-stream
    }
}
