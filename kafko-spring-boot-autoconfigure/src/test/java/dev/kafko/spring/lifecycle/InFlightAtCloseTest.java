package dev.kafko.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.SendResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.SendTo;

/** sends and replies in flight while the context closes. */
class InFlightAtCloseTest {

    static final CountDownLatch IN_HAND = new CountDownLatch(1);

    @Test
    void everySendAcknowledgedBeforeOrDuringTheCloseIsOnDiskAndNoFutureIsLeftPending(@TempDir Path dir)
            throws Exception {
        List<CompletableFuture<SendResult<Object, Object>>> futures = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        int[] thrown = new int[1];
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.flight.partitions=3")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    Thread sender = new Thread(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            try {
                                CompletableFuture<SendResult<Object, Object>> f = template.send("flight", "k" + i,
                                        "v" + i);
                                synchronized (futures) {
                                    futures.add(f);
                                }
                            } catch (KafkoClosedException e) {
                                thrown[0]++;
                                return;
                            }
                        }
                    }, "racing-sender");
                    sender.start();
                    await().atMost(Duration.ofSeconds(10)).until(() -> {
                        synchronized (futures) {
                            return futures.size() >= 5_000;
                        }
                    });
                    context.getSourceApplicationContext().close(); // while the sender keeps sending
                    stop.set(true);
                    sender.join(10_000);
                });
        Set<String> acked = new HashSet<>();
        int failed = 0;
        synchronized (futures) {
            for (CompletableFuture<SendResult<Object, Object>> f : futures) {
                try {
                    SendResult<Object, Object> r = f.get(5, TimeUnit.SECONDS);
                    acked.add(r.partition() + "@" + r.offset() + "=" + r.value());
                } catch (java.util.concurrent.ExecutionException e) {
                    failed++;
                }
            }
        }
        System.out.println("acked " + acked.size() + " failed " + failed + " thrown " + thrown[0]);
        assertThat(acked).isNotEmpty();
        Set<String> stored = new HashSet<>();
        try (Kafko kafko = Kafko.open(dir); var consumer = kafko.consumer("flight")) {
            List<KafkoRecord> batch;
            while (!(batch = consumer.poll(Duration.ofMillis(200))).isEmpty()) {
                for (KafkoRecord r : batch) {
                    stored.add(r.partition() + "@" + r.offset() + "=" + new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        Set<String> missing = new HashSet<>(acked); // a set difference: AssertJ's containsAll scans per element,
        missing.removeAll(stored); // which took 5 minutes over 73,000 records
        assertThat(missing).as("acknowledged but not stored").isEmpty();
    }

    static class Replier {
        @KafkoListener(id = "replier", topics = "req")
        @SendTo("rep")
        String on(String value) throws InterruptedException {
            IN_HAND.countDown();
            Thread.sleep(1_000);
            return "re:" + value;
        }
    }

    @Test
    void aMemberThatOverranItsShutdownTimeoutWithAReplyToSendEndsOnceItsListenerReturns(@TempDir Path dir)
            throws Exception {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Replier.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=100ms",
                        "kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=3",
                        "kafko.listener.retry.backoff=100ms")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("req", "a").join();
                    template.send("req", "b").join();
                    assertThat(IN_HAND.await(20, TimeUnit.SECONDS)).isTrue();
                });
        await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("replier-")));
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.groupInfo("req", "replier").committed().getOrDefault(0, 0L)).isZero();
            assertThat(kafko.topic("rep").map(t -> t.partition(0).endOffset()).orElse(0L)).isZero();
        }
    }
}
