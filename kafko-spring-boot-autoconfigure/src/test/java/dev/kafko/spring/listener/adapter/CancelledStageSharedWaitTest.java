package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.listener.ConsumerSeekAware;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * B131's extra wait after a stop cancelled its members' stages is shared by the members asked to stop together, as
 * the shutdown timeout is: waited for one member after the other, each member's own second added up, so a listener
 * of members whose threads end slowly (a revocation callback, a final commit) held the context's close a second a member
 * past its timeout, and cancelled the last member's stage five seconds late.
 */
class CancelledStageSharedWaitTest {

    static final int MEMBERS = 8;
    static final AtomicInteger CANCELLED = new AtomicInteger();
    static volatile CountDownLatch waiting = new CountDownLatch(MEMBERS);

    static class SlowRevocation implements ConsumerSeekAware {
        @KafkoListener(id = "slow", topics = "slow", concurrency = "8")
        Mono<Void> on(String value) {
            return Mono.<Void>never().doOnSubscribe(s -> waiting.countDown()).doOnCancel(CANCELLED::incrementAndGet);
        }

        @Override
        public void onPartitionsRevoked(String topic, Collection<Integer> partitions) {
            try {
                Thread.sleep(2000); // the member's thread ends slowly after its stage is cancelled
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void membersStoppedTogetherShareTheWaitAfterTheirStagesAreCancelled(@TempDir Path dir) {
        long[] closing = new long[1];
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(SlowRevocation.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=300ms",
                        "kafko.topics.slow.partitions=" + MEMBERS)
                .run(context -> {
                    for (int p = 0; p < MEMBERS; p++) {
                        template(context).send("slow", p, null, "r" + p).join();
                    }
                    assertThat(waiting.await(20, TimeUnit.SECONDS)).as("every member waits for its Mono").isTrue();
                    closing[0] = System.nanoTime();
                });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing[0]);
        assertThat(CANCELLED).hasValue(MEMBERS);
        // the timeout (300 ms) and one second more, shared (about 1.6 s); before: about 300 ms + 8 x 1 s
        assertThat(millis).as("the close of %d members stopped together", MEMBERS).isLessThan(5000);
    }
}
