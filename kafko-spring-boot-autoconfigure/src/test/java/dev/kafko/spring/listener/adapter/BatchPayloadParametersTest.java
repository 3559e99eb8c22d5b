package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;

/**
 * A batch listener's payload is one list: a method with a second {@code List} payload parameter (the records beside
 * the converted values) got that same list in both, a {@code List<Order>} holding {@code KafkoRecord}s that failed
 * with a {@code ClassCastException} in the method, each batch retried and dead-lettered unprocessed.
 */
class BatchPayloadParametersTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();

    record Order(String id, int amount) {
    }

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(3);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class RecordsBesideValues {
        @KafkoListener(id = "records-beside-values", topics = "beside", batch = "true")
        void on(List<KafkoRecord> records, @Payload List<Order> orders) {
            SEEN.add(orders.get(0).id());
        }
    }

    @Test
    void aSecondListPayloadParameterOfABatchListenerFailsStartUpNamingTheRecordsHeader() {
        runner.withBean(RecordsBesideValues.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("Batch listener 'records-beside-values'")
                .hasStackTraceContaining("@Header(KafkoHeaders.RAW_DATA) List<KafkoRecord>"));
    }

    static class RecordsAsHeader {
        @KafkoListener(id = "records-as-header", topics = "as-header", batch = "true")
        void on(List<Order> orders, @Header(KafkoHeaders.RAW_DATA) List<KafkoRecord> records) {
            SEEN.add(orders.get(0).id() + "@" + records.get(0).offset());
        }
    }

    @Test
    void theRecordsOfABatchOfValuesAreReadFromTheRawDataHeader() {
        runner.withBean(RecordsAsHeader.class).run(context -> {
            template(context).send("as-header", new Order("o-1", 3)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("o-1@0");
        });
    }
}
