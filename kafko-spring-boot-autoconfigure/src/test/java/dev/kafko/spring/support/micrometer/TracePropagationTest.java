package dev.kafko.spring.support.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.propagation.TraceContext;
import brave.sampler.Sampler;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.util.backoff.FixedBackOff;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A trace goes from a send through the record's headers into the listener and on through its reply,
 * with Micrometer Tracing over Brave as an application with Actuator and Brave has it.
 */
class TracePropagationTest {

    /** Trace id seen inside each listener, by listener id. */
    static final Map<String, String> SEEN = new ConcurrentHashMap<>();
    static final List<MutableSpan> FINISHED = new CopyOnWriteArrayList<>();

    private Tracing tracing;
    private Tracer tracer;
    private ObservationRegistry registry;

    @BeforeEach
    void tracing() {
        SEEN.clear();
        FINISHED.clear();
        tracing = Tracing.newBuilder()
                .currentTraceContext(ThreadLocalCurrentTraceContext.newBuilder().build())
                .sampler(Sampler.ALWAYS_SAMPLE)
                .addSpanHandler(new SpanHandler() {
                    @Override
                    public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                        FINISHED.add(span);
                        return true;
                    }
                })
                .build();
        tracer = new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(tracing.currentTraceContext()),
                new BraveBaggageManager());
        Propagator propagator = new BravePropagator(tracing);
        registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    }

    @AfterEach
    void close() {
        tracing.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(ObservationRegistry.class, () -> registry)
                .withBean(Tracer.class, () -> tracer)
                .withBean(TracedListeners.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.template.observation-enabled=true",
                        "kafko.listener.observation-enabled=true");
    }

    @Test
    void theListenerAndItsReplyContinueTheTraceOfTheSend() {
        runner().run(context -> {
            String traceId = sendInsideARequest(context, "order-1");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));

            assertThat(SEEN).containsEntry("orders", traceId).containsEntry("replies", traceId);
            // request, send, process, the reply's send, its process: one trace, each span a child of the one before
            assertThat(FINISHED).extracting(MutableSpan::traceId).containsOnly(traceId);
            MutableSpan send = span("orders send");
            MutableSpan process = span("orders process");
            MutableSpan replySend = span("replies send");
            MutableSpan replyProcess = span("replies process");
            assertThat(process.parentId()).isEqualTo(send.id());
            assertThat(replySend.parentId()).isEqualTo(process.id());
            assertThat(replyProcess.parentId()).isEqualTo(replySend.id());
            assertThat(send.kind()).isEqualTo(brave.Span.Kind.PRODUCER);
            assertThat(process.kind()).isEqualTo(brave.Span.Kind.CONSUMER);
            assertThat(process.tags()).containsEntry("kafko.listener.id", "orders");
        });
    }

    @Test
    void theRetriesAndTheRecoveryOfARecordThatFailsBelongToItsTrace() {
        runner().withBean(KafkoErrorHandler.class, () -> new DefaultErrorHandler(new FixedBackOff(0, 1),
                        (record, failure, invocation) -> SEEN.put("recovery", currentTraceId(tracer))))
                .run(context -> {
                    Observation request = Observation.start("request", registry);
                    String traceId;
                    try (Observation.Scope ignored = request.openScope()) {
                        traceId = tracer.currentSpan().context().traceId();
                        template(context).send("doomed", "x").join();
                    }
                    request.stop();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
                    assertThat(SEEN).containsEntry("doomed-1", traceId).containsEntry("doomed-2", traceId)
                            .containsEntry("recovery", traceId);
                    MutableSpan process = span("doomed process");
                    assertThat(process.error()).isInstanceOf(IllegalStateException.class);
                    assertThat(FINISHED).filteredOn(s -> "doomed process".equals(s.name())).hasSize(1);
                });
    }

    @Test
    void aForwardedMessageCarriesTheCurrentTraceOnceNotTheOneItCameWith() {
        runner().run(context -> {
            String stale = "463ac35c9f6413ad48485a3953bb6124";
            Observation request = Observation.start("request", registry);
            Span current;
            try (Observation.Scope ignored = request.openScope()) {
                current = tracer.currentSpan();
                template(context).send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "plain")
                        .setHeader("X-B3-TraceId", stale).setHeader("X-B3-SpanId", "48485a3953bb6124").build()).join();
            }
            request.stop();
            KafkoRecord record = KafkoTestUtils.records(context, "plain").get(0);
            assertThat(record.headers().headers("X-B3-TraceId")).singleElement()
                    .satisfies(h -> assertThat(h.valueAsString()).isEqualTo(current.context().traceId()));
            assertThat(record.headers().headers("X-B3-SpanId")).hasSize(1);
        });
    }

    @Test
    void withoutTheListenerPropertyTheListenerStartsNoSpanOfItsOwn() {
        runner().withPropertyValues("kafko.listener.observation-enabled=false").run(context -> {
            sendInsideARequest(context, "order-2");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(SEEN).containsEntry("orders", "none");
            assertThat(FINISHED).extracting(MutableSpan::name).doesNotContain("orders process");
        });
    }

    private String sendInsideARequest(ApplicationContext context, String value) {
        Observation request = Observation.start("request", registry);
        try (Observation.Scope ignored = request.openScope()) {
            String traceId = tracer.currentSpan().context().traceId();
            template(context).send("orders", value).join();
            return traceId;
        } finally {
            request.stop();
        }
    }

    private static MutableSpan span(String name) {
        return FINISHED.stream().filter(s -> name.equals(s.name())).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " among " + FINISHED));
    }

    static class TracedListeners {
        private final Tracer tracer;

        TracedListeners(Tracer tracer) {
            this.tracer = tracer;
        }

        @KafkoListener(id = "orders", topics = "orders")
        @SendTo("replies")
        String onOrder(String order) {
            SEEN.put("orders", traceId());
            return order + " accepted";
        }

        @KafkoListener(id = "replies", topics = "replies")
        void onReply(String reply) {
            SEEN.put("replies", traceId());
        }

        @KafkoListener(id = "doomed", topics = "doomed")
        void onDoomed(String value, @Header(KafkoHeaders.DELIVERY_ATTEMPT) int attempt) {
            SEEN.put("doomed-" + attempt, traceId());
            throw new IllegalStateException("attempt " + attempt + " fails");
        }

        private String traceId() {
            return currentTraceId(tracer);
        }
    }

    static String currentTraceId(Tracer tracer) {
        Span span = tracer.currentSpan();
        return span == null ? "none" : span.context().traceId();
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
