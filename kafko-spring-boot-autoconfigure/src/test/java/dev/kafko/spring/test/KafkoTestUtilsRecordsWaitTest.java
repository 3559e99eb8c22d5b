package dev.kafko.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link KafkoTestUtils#records(ApplicationContext, String, int, Duration)} and {@link KafkoTestUtils#singleRecord}:
 * a test waits for records another thread sends, and for the topic that send creates, without a sleep; the forms of a
 * test's own consumer return what was sent after its position only.
 */
class KafkoTestUtilsRecordsWaitTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.auto-create-topics=true",
                    "kafko.topics.out.partitions=3");

    @Test
    void waitsForRecordsAnotherThreadSendsAndReturnsAllTheTopicHoldsSorted() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 6; i++) {
                    template.send("out", i % 3, null, "v" + i).join();
                }
            });
            List<KafkoRecord> records = KafkoTestUtils.records(context, "out", 6, Duration.ofSeconds(20));
            sender.join();
            assertThat(records).extracting(r -> new String(r.value()))
                    .containsExactly("v0", "v3", "v1", "v4", "v2", "v5");
            assertThat(records).extracting(KafkoRecord::partition).containsExactly(0, 0, 1, 1, 2, 2);
        });
    }

    @Test
    void returnsEveryRecordTheTopicHoldsOnceItHoldsTheMinimum() {
        runner.run(context -> {
            for (int i = 0; i < 4; i++) {
                template(context).send("out", 0, null, "v" + i).join();
            }
            assertThat(KafkoTestUtils.records(context, "out", 2, Duration.ofSeconds(20))).hasSize(4);
            assertThat(KafkoTestUtils.records(context.getBean(Kafko.class), "out", 4, Duration.ofSeconds(20)))
                    .extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L, 3L);
        });
    }

    @Test
    void fewerRecordsThanTheMinimumFailNamingTheTopicAndWhatItHeld() {
        runner.run(context -> {
            template(context).send("out", "only").join();
            assertThatThrownBy(() -> KafkoTestUtils.records(context, "out", 2, Duration.ofMillis(200)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessage("topic 'out' held 1 record after PT0.2S; expected at least 2");
            assertThat(KafkoTestUtils.records(context, "out", 1, Duration.ofSeconds(5))).hasSize(1);
        });
    }

    @Test
    void waitsForTheTopicTheFirstSendCreates() {
        runner.withUserConfiguration(WatchSignal.class).run(context -> {
            WatchSignal.WATCHING.set(new CountDownLatch(1));
            CompletableFuture<KafkoRecord> single = CompletableFuture.supplyAsync(
                    () -> KafkoTestUtils.singleRecord(context, "created-later", Duration.ofSeconds(20)));
            // the wait watches for the topic before it is created: this send creates it
            assertThat(WatchSignal.WATCHING.get().await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(context.getBean(Kafko.class).topic("created-later")).isEmpty();
            template(context).send("created-later", "k", "first").join();
            KafkoRecord record = single.get(20, TimeUnit.SECONDS);
            assertThat(new String(record.value())).isEqualTo("first");
            assertThat(new String(record.key())).isEqualTo("k");
        });
    }

    @Test
    void aTopicNeverCreatedFailsNamingIt() {
        runner.run(context -> assertThatThrownBy(() -> KafkoTestUtils.records(context, "never", 1,
                Duration.ofMillis(100))).isInstanceOf(AssertionError.class)
                .hasMessage("topic 'never' was not created within PT0.1S"));
    }

    @Test
    void outsideAContextTheTopicMustExist() {
        runner.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            assertThatThrownBy(() -> KafkoTestUtils.records(kafko, "never", 1, Duration.ofSeconds(5)))
                    .isInstanceOf(UnknownTopicException.class).hasMessageContaining("topic 'never' does not exist");
        });
    }

    @Test
    void singleRecordFailsWhenTheTopicHoldsMore() {
        runner.run(context -> {
            template(context).send("out", 0, null, "a").join();
            template(context).send("out", 0, null, "b").join();
            assertThatThrownBy(() -> KafkoTestUtils.singleRecord(context, "out", Duration.ofSeconds(5)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("topic 'out' holds 2 records; expected one (the whole topic counts")
                    .hasMessageContaining("singleRecord(Consumer, Duration)");
        });
    }

    @Test
    void aConsumerMovedToTheEndReturnsOnlyWhatWasSentAfterAsEachTestOfASharedContextNeeds() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("out", 0, null, "earlier test").join();
            template.send("out", 1, null, "earlier test").join();
            try (Consumer consumer = context.getBean(Kafko.class).consumer("out")) {
                consumer.seekToEnd();
                CompletableFuture<Void> sender = CompletableFuture.runAsync(
                        () -> template.send("out", 2, null, "this test").join());
                KafkoRecord mine = KafkoTestUtils.singleRecord(consumer, Duration.ofSeconds(20));
                sender.join();
                assertThat(new String(mine.value())).isEqualTo("this test");
                assertThat(mine.partition()).isEqualTo(2);

                // the next test's records only: the consumer kept its position
                for (int i = 0; i < 3; i++) {
                    template.send("out", i, null, "next test " + i).join();
                }
                assertThat(KafkoTestUtils.records(consumer, 2, Duration.ofSeconds(20)))
                        .extracting(r -> new String(r.value()))
                        .containsExactly("next test 0", "next test 1", "next test 2");
            }
        });
    }

    @Test
    void aConsumerThatReturnsTooFewOrTooManyFailsNamingItsTopic() {
        runner.run(context -> {
            try (Consumer consumer = context.getBean(Kafko.class).consumer("out")) {
                assertThatThrownBy(() -> KafkoTestUtils.records(consumer, 1, Duration.ofMillis(200)))
                        .isInstanceOf(AssertionError.class)
                        .hasMessage("consumer of topic 'out' returned 0 records after PT0.2S; expected at least 1");
                template(context).send("out", 0, null, "a").join();
                template(context).send("out", 1, null, "b").join();
                assertThatThrownBy(() -> KafkoTestUtils.singleRecord(consumer, Duration.ofSeconds(5)))
                        .isInstanceOf(AssertionError.class)
                        .hasMessage("consumer of topic 'out' returned 2 records; expected one");
                assertThatThrownBy(() -> KafkoTestUtils.records(consumer, 0, Duration.ofSeconds(1)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("minRecords must be at least 1, was 0");
            }
        });
    }

    @Test
    void aZeroTimeoutReturnsWhatIsThereAlready() {
        runner.run(context -> {
            try (Consumer consumer = context.getBean(Kafko.class).consumer("out")) {
                template(context).send("out", 0, null, "a").join();
                template(context).send("out", 1, null, "b").join();
                assertThat(KafkoTestUtils.records(context, "out", 2, Duration.ZERO))
                        .extracting(r -> new String(r.value())).containsExactly("a", "b");
                assertThat(KafkoTestUtils.records(consumer, 2, Duration.ZERO))
                        .extracting(r -> new String(r.value())).containsExactly("a", "b");
                assertThatThrownBy(() -> KafkoTestUtils.singleRecord(consumer, Duration.ZERO))
                        .isInstanceOf(AssertionError.class)
                        .hasMessage("consumer of topic 'out' returned 0 records after PT0S; expected at least 1");
            }
        });
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        runner.run(context -> {
            assertThatThrownBy(() -> KafkoTestUtils.records(context, "out", 0, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("minRecords must be at least 1, was 0");
            assertThatThrownBy(() -> KafkoTestUtils.records(context, "out", 1, Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must not be negative, was PT-1S");
            assertThatThrownBy(() -> KafkoTestUtils.records(context, "bad/name", 1, Duration.ofSeconds(1)))
                    .isInstanceOf(InvalidNameException.class);
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    /** Tells the test when a watch of topic creations starts, by a proxy of the backend bean. */
    @Configuration(proxyBeanMethods = false)
    static class WatchSignal {

        static final java.util.concurrent.atomic.AtomicReference<CountDownLatch> WATCHING =
                new java.util.concurrent.atomic.AtomicReference<>(new CountDownLatch(1));

        @Bean
        static BeanPostProcessor signallingWatches() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (!(bean instanceof LogBackend backend)) {
                        return bean;
                    }
                    return Proxy.newProxyInstance(LogBackend.class.getClassLoader(), new Class<?>[] {LogBackend.class},
                            (proxy, method, args) -> {
                                try {
                                    Object result = method.invoke(backend, args);
                                    if (method.getName().equals("watchTopicCreations")) {
                                        WATCHING.get().countDown();
                                    }
                                    return result;
                                } catch (InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            });
                }
            };
        }
    }
}
