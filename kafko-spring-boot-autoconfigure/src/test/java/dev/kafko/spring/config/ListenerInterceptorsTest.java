package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.BatchInterceptor;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.RecordInterceptor;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Where the record and batch interceptors are set: the auto-configured factory takes the single bean of each kind,
 * and every container a factory makes gets them, those of its copies and of a {@code @RetryableTopic}'s retry and
 * dead-letter topics included.
 */
class ListenerInterceptorsTest {

    static final List<String> TOPICS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void theAutoConfiguredFactoryTakesTheSingleInterceptorOfEachKindAndNoneOfSeveral() {
        RecordInterceptor records = record -> record;
        BatchInterceptor batches = list -> list;
        runner.withBean("records", RecordInterceptor.class, () -> records)
                .withBean("batches", BatchInterceptor.class, () -> batches)
                .run(context -> {
                    KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
                    assertThat(factory.getRecordInterceptor()).isSameAs(records);
                    assertThat(factory.getBatchInterceptor()).isSameAs(batches);
                });
        runner.withBean("records", RecordInterceptor.class, () -> records)
                .withBean("others", RecordInterceptor.class, () -> record -> record)
                .run(context -> {
                    KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
                    assertThat(factory.getRecordInterceptor()).isNull(); // as Boot's spring-kafka: none is chosen
                    assertThat(factory.getBatchInterceptor()).isNull();
                });
        runner.withBean("records", RecordInterceptor.class, () -> records, bd -> bd.setPrimary(true))
                .withBean("others", RecordInterceptor.class, () -> record -> record)
                .withBean("batches", BatchInterceptor.class, () -> batches, bd -> bd.setPrimary(true))
                .withBean("otherBatches", BatchInterceptor.class, () -> list -> list)
                .run(context -> {
                    KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
                    assertThat(factory.getRecordInterceptor()).isSameAs(records); // of several, the @Primary one
                    assertThat(factory.getBatchInterceptor()).isSameAs(batches);
                });
    }

    @Test
    void aCopyOfAFactoryAndTheContainersItMakesCarryItsInterceptors() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            RecordInterceptor records = record -> record;
            BatchInterceptor batches = list -> list;
            factory.setRecordInterceptor(records);
            factory.setBatchInterceptor(batches);
            KafkoListenerContainerFactory copy = factory.copy();
            factory.setRecordInterceptor(null); // the copy keeps its own
            assertThat(copy.getRecordInterceptor()).isSameAs(records);
            assertThat(copy.getBatchInterceptor()).isSameAs(batches);
            ConcurrentMessageListenerContainer container = copy.createListenerContainer("plain", "plain",
                    List.of("plain"), (recordsPolled, ack) -> { });
            assertThat(container.getRecordInterceptor()).isSameAs(records);
            assertThat(container.getBatchInterceptor()).isSameAs(batches);
        });
    }

    @Test
    void theRetryAndDeadLetterTopicsContainersOfARetryableTopicUseTheFactorysRecordInterceptor() {
        TOPICS.clear();
        runner.withBean(RecordInterceptor.class, () -> (KafkoRecord record) -> {
                    TOPICS.add(record.topic());
                    return record;
                })
                .withBean(Orders.class)
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("orders", "poison").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(TOPICS).containsExactly("orders", "orders-retry", "orders-dlt");
                });
    }

    static class Orders {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "orders", topics = "orders")
        void on(String value) {
            throw new IllegalStateException("cannot digest " + value);
        }
    }
}
