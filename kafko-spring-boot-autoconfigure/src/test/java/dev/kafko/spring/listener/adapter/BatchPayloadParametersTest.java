package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor;
import dev.kafko.spring.support.RecordMessageConverter;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

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

    static class RecordsAsCollection {
        @KafkoListener(id = "records-as-collection", topics = "as-collection", batch = "true")
        void on(Collection<KafkoRecord> records, List<Order> orders) {
            SEEN.add(orders.get(0).id() + "@" + records.iterator().next().offset());
        }
    }

    @Test
    void aCollectionBesideTheListPayloadFailsStartUpAsASecondListDoes() {
        runner.withBean(RecordsAsCollection.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("Batch listener 'records-as-collection'")
                .hasStackTraceContaining("@Header(KafkoHeaders.RAW_DATA) List<KafkoRecord>"));
    }

    /** A parameter of the application's own kind, which its own argument resolver gives. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Tenants {
    }

    /** Gives a {@code @Tenants List<String>} the tenants of the batch, one per record. */
    static final class TenantsResolver implements HandlerMethodArgumentResolver {
        @Override
        public boolean supportsParameter(MethodParameter parameter) {
            return parameter.hasParameterAnnotation(Tenants.class);
        }

        @Override
        public Object resolveArgument(MethodParameter parameter, Message<?> message) {
            return ((List<?>) message.getHeaders().get(KafkoHeaders.RAW_DATA)).stream()
                    .map(r -> "tenant-" + ((KafkoRecord) r).offset()).toList();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TenantsConfiguration {
        @Bean(KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME)
        MessageHandlerMethodFactory kafkoHandlerMethodFactory(RecordMessageConverter converter) {
            return KafkoArgumentResolvers.handlerMethodFactory(converter, null, List.of(new TenantsResolver()));
        }
    }

    static class TenantsBesideValues {
        @KafkoListener(id = "tenants-beside-values", topics = "tenants", batch = "true")
        void on(@Tenants List<String> tenants, List<Order> orders) {
            SEEN.add(orders.get(0).id() + "@" + tenants.get(0));
        }
    }

    @Test
    void aListParameterOfTheApplicationsOwnResolverBesideTheListPayloadStartsAndGetsWhatItResolves() {
        runner.withUserConfiguration(TenantsConfiguration.class)
                .withBean(TenantsBesideValues.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    template(context).send("tenants", new Order("o-1", 3)).join();
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(SEEN).containsExactly("o-1@tenant-0");
                });
    }
}
