package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.config.NewTopic;
import dev.kafko.spring.config.TopicBuilder;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Claims of the README's "Quickstart: a Spring Boot 4 application" that no other test checks: its examples as
 * written, compiled and run.
 */
class ReadmeClaimsQuickstartTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Each order the listener got, by the partition and offset its headers gave. */
    private static final Map<String, Order> BILLED = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    /**
     * The {@code Orders} service of the quickstart, as written: the template of {@code <String, Order>} injected, a
     * send "JSON, keyed by customer", and a listener of {@code concurrency = "2"} given the partition and offset
     * headers, "committed once the records of its poll are processed (ack mode batch)"; on the topic the YAML
     * declares ({@code partitions: 4}, {@code compression: lz4}).
     */
    @Test
    void theQuickstartServiceSendsJsonKeyedByCustomerAndItsListenerGetsEachRecordWithItsPartitionAndOffset() {
        BILLED.clear();
        runner.withPropertyValues("kafko.topics.orders.partitions=4", "kafko.topics.orders.compression=lz4")
                .withBean(Orders.class).run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.topic("orders")).hasValueSatisfying(topic -> {
                        assertThat(topic.partitionCount()).isEqualTo(4);
                        assertThat(topic.config().compression()).isEqualTo(Compression.LZ4);
                    });
                    Orders orders = context.getBean(Orders.class);
                    List<SendResult<String, Order>> sent = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        sent.add(orders.place(new Order("customer-" + (i % 5), i)).join());
                    }
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(BILLED).hasSize(20);
                    for (SendResult<String, Order> result : sent) {
                        Order order = result.value();
                        assertThat(BILLED).containsEntry(result.partition() + "@" + result.offset(), order);
                        KafkoRecord record = context.getBean(KafkoTemplate.class)
                                .receive("orders", result.partition(), result.offset());
                        assertThat(record).isNotNull();
                        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(order.customer());
                        assertThat(new String(record.value(), StandardCharsets.UTF_8))
                                .isEqualTo("{\"customer\":\"" + order.customer() + "\",\"amount\":" + order.amount()
                                        + "}");
                    }
                    // keyed by customer: one customer's orders on one partition
                    for (SendResult<String, Order> a : sent) {
                        for (SendResult<String, Order> b : sent) {
                            if (a.key().equals(b.key())) {
                                assertThat(a.partition()).isEqualTo(b.partition());
                            }
                        }
                    }
                    // concurrency = "2": two members share the four partitions
                    ConcurrentMessageListenerContainer billing = (ConcurrentMessageListenerContainer) context
                            .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("billing");
                    assertThat(billing).isNotNull();
                    assertThat(billing.getMembers()).hasSize(2);
                    // ack mode batch: everything processed is committed
                    Map<Integer, Long> committed = kafko.groupInfo("orders", "billing").committed();
                    for (int partition = 0; partition < 4; partition++) {
                        long end = kafko.topic("orders").orElseThrow().partitions().get(partition).endOffset();
                        assertThat(committed.getOrDefault(partition, 0L)).as("partition " + partition).isEqualTo(end);
                    }
                });
    }

    /**
     * The quickstart's test, as written, on its {@code Orders} service with no topic declared: "Topics are created on
     * first use with {@code kafko.defaults} (1 partition, no compression, kept for ever)", and once
     * {@code waitForListeners} returns the listener has billed the order.
     */
    @Test
    void theQuickstartsTestSeesTheOrderBilledOnATopicMadeOnFirstUse() {
        BILLED.clear();
        runner.withBean(Orders.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            Orders orders = context.getBean(Orders.class);
            orders.place(new Order("alice", 42)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(BILLED).containsExactly(Map.entry("0@0", new Order("alice", 42)));
            assertThat(kafko.topic("orders")).hasValueSatisfying(topic -> {
                assertThat(topic.partitionCount()).isEqualTo(1);
                assertThat(topic.config().compression()).isEqualTo(Compression.NONE);
                assertThat(topic.config().retention()).isNull();
                assertThat(topic.config().retentionBytes()).isNegative();
            });
        });
    }

    /** The quickstart's {@code NewTopic} bean, as written, gives the same topic as its YAML. */
    @Test
    void theQuickstartsNewTopicBeanMakesTheTopicItsYamlDeclares() {
        runner.withUserConfiguration(TopicBean.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Kafko.class).topic("orders")).hasValueSatisfying(topic -> {
                assertThat(topic.partitionCount()).isEqualTo(4);
                assertThat(topic.config().compression()).isEqualTo(Compression.LZ4);
            });
        });
    }

    /**
     * The quickstart's {@code NewTopic} bean and its {@code Orders} service, as written, in one application: component
     * scanning names the service {@code orders}, so the bean method must not be {@code orders()} as well (a second
     * bean of that name fails the start-up); the topic it declares is the one the service sends to.
     */
    @Test
    void theQuickstartsNewTopicBeanStartsBesideItsOrdersService() {
        BILLED.clear();
        runner.withBean("orders", Orders.class).withUserConfiguration(TopicBean.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Kafko.class).topic("orders"))
                    .hasValueSatisfying(topic -> assertThat(topic.partitionCount()).isEqualTo(4));
            SendResult<String, Order> sent = context.getBean(Orders.class).place(new Order("alice", 42)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(BILLED).containsExactly(Map.entry(sent.partition() + "@" + sent.offset(), new Order("alice", 42)));
        });
    }

    /** "there is no {@code assignReplicas}": ported code that calls it does not compile, rather than being ignored. */
    @Test
    void topicBuilderHasNoAssignReplicas() {
        assertThat(Arrays.stream(TopicBuilder.class.getMethods()).map(Method::getName)).doesNotContain("assignReplicas");
    }

    record Order(String customer, int amount) {
    }

    static class Orders {
        private final KafkoTemplate<String, Order> template;

        Orders(KafkoTemplate<String, Order> template) {
            this.template = template;
        }

        CompletableFuture<SendResult<String, Order>> place(Order order) {
            return template.send("orders", order.customer(), order);   // JSON, keyed by customer
        }

        @KafkoListener(id = "billing", topics = "orders", concurrency = "2")
        void bill(Order order, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                  @Header(KafkoHeaders.OFFSET) long offset) {
            BILLED.put(partition + "@" + offset, order);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TopicBean {
        @Bean
        NewTopic ordersTopic() {
            return TopicBuilder.name("orders").partitions(4).compression(Compression.LZ4).build();
        }
    }
}
