package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that closes itself from its {@code onPartitionsRevoked} callback (it shuts down when it loses
 * partitions) has left its group when the callback returns: the poll that ran the callback must not then read
 * the partitions the member kept before the close, which another member now reads from the group's commit.
 */
class CloseFromRevokeCallbackTest {

    @TempDir
    Path tmp;

    @Test
    void aMemberClosedInItsRevokeCallbackReadsNothingMoreInThatPoll() {
        try (Kafko k = Kafko.open(tmp)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 6; i++) {
                k.producer("t").sendTo(i % 2, null, new byte[] {(byte) i}).join();
            }
            AtomicReference<Consumer> self = new AtomicReference<>();
            List<List<Integer>> revoked = new ArrayList<>();
            ConsumerRebalanceListener closeOnRevoke = new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<Integer> partitions) {
                    revoked.add(List.copyOf(partitions));
                    Consumer c = self.get();
                    if (c != null) {
                        self.set(null);
                        c.close();
                    }
                }
            };
            Consumer a = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(closeOnRevoke)
                    .withMaxPollRecords(1));
            assertThat(a.poll(Duration.ofSeconds(1))).hasSize(1);
            assertThat(a.assignment()).containsExactly(0, 1);
            self.set(a);
            Consumer b = k.groupConsumer("t", "g"); // a's next poll gives up partition 1, and a closes itself

            List<KafkoRecord> afterClose = new ArrayList<>();
            Throwable thrown = catchThrowable(() -> afterClose.addAll(a.poll(Duration.ofMillis(100))));
            assertThat(revoked).as("each partition revoked once: 1 by the rebalance, 0 by the close")
                    .containsExactly(List.of(1), List.of(0));
            List<KafkoRecord> readByB = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                readByB.addAll(b.poll(Duration.ofMillis(20)));
            }
            assertThat(b.assignment()).containsExactly(0, 1);
            assertThat(afterClose).as("records returned by the poll whose callback closed the member (b read them too: %s)",
                    readByB.stream().map(r -> r.partition() + "@" + r.offset()).toList())
                    .extracting(r -> r.partition() + "@" + r.offset()).isEmpty();
            assertThat(thrown).as("the poll whose callback closed the member").isInstanceOf(KafkoClosedException.class);
            b.close();
        }
    }
}
