package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.InvalidConfigException;
import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Topics declared as {@link NewTopic} and {@link NewTopics} beans, spring-kafka's way, and {@link TopicBuilder}. */
@ExtendWith(OutputCaptureExtension.class)
class NewTopicBeansTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Configuration(proxyBeanMethods = false)
    static class Orders {
        @Bean
        NewTopic ordersTopic() {
            return TopicBuilder.name("orders").partitions(6).config("retention.ms", "86400000")
                    .config("compression.type", "lz4").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Several {
        @Bean
        NewTopics audit() {
            return new NewTopics(TopicBuilder.name("audit").retention(null).build(),
                    TopicBuilder.name("audit.DLT").partitions(2).fsync(FsyncPolicy.EVERY_BATCH).build());
        }
    }

    @Test
    void aNewTopicBeanIsCreatedAtStartUpWithItsKeysOverKafkosDefaults() {
        runner.withUserConfiguration(Orders.class, Several.class)
                .withPropertyValues("kafko.defaults.retention=7d", "kafko.defaults.partitions=3",
                        "kafko.defaults.segment-size=64MB")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Kafko kafko = context.getBean(Kafko.class);
                    TopicConfig orders = kafko.topic("orders").orElseThrow().config();
                    assertThat(orders.partitions()).isEqualTo(6);
                    assertThat(orders.retention()).isEqualTo(Duration.ofDays(1));
                    assertThat(orders.compression()).isEqualTo(Compression.LZ4);
                    assertThat(orders.segmentBytes()).isEqualTo(64L << 20);
                    TopicConfig audit = kafko.topic("audit").orElseThrow().config();
                    assertThat(audit.partitions()).as("left to kafko.defaults").isEqualTo(3);
                    assertThat(audit.retention()).as("retention(null) keeps records for ever over the defaults'")
                            .isNull();
                    TopicConfig dlt = kafko.topic("audit.DLT").orElseThrow().config();
                    assertThat(dlt.partitions()).isEqualTo(2);
                    assertThat(dlt.fsync()).isEqualTo(FsyncPolicy.EVERY_BATCH);
                });
    }

    @Test
    void aTopicDeclaredByABeanCountsAsDeclaredWhenAutoCreationIsOff() {
        runner.withUserConfiguration(Orders.class).withPropertyValues("kafko.auto-create-topics=false")
                .run(context -> {
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    assertThat(template.send("orders", "o-1").join().topic()).isEqualTo("orders");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersWithTwo {
        @Bean
        NewTopic ordersTopic() {
            return TopicBuilder.name("orders").partitions(2).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersWithoutCount {
        @Bean
        NewTopic ordersTopic() {
            return TopicBuilder.name("orders").config("retention.ms", "1000").build();
        }
    }

    @Test
    void anExistingTopicGrowsToABeansCountAndAShrinkFailsStartUpNamingTheBean(@TempDir Path dir, CapturedOutput out) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withUserConfiguration(OrdersWithTwo.class).run(context -> assertThat(context).hasNotFailed());
        onDir.withUserConfiguration(Orders.class).run(context ->
                assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().partitionCount()).isEqualTo(6));
        assertThat(out).contains("Topic 'orders' exists with").contains("NewTopic bean 'ordersTopic' asks for");
        onDir.withUserConfiguration(OrdersWithTwo.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("NewTopic bean 'ordersTopic' with 2 partitions would shrink topic 'orders',"
                        + " which has 6 partitions; partitions can only grow: ask for 6 or more"));
        onDir.withUserConfiguration(OrdersWithoutCount.class).run(context -> {
            assertThat(context).as("no count of its own: the topic keeps its 6").hasNotFailed();
            assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().partitionCount()).isEqualTo(6);
        });
    }

    @Test
    void aTopicDeclaredByABeanAndByPropertiesFailsStartUpNamingBoth() {
        runner.withUserConfiguration(Orders.class).withPropertyValues("kafko.topics.orders.partitions=6")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining(
                        "topic 'orders' is declared twice, by kafko.topics.orders and by NewTopic bean 'ordersTopic':"
                                + " declare it in one place"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersTwice {
        @Bean
        NewTopics moreTopics() {
            return new NewTopics(TopicBuilder.name("orders").build());
        }
    }

    @Test
    void aTopicDeclaredByTwoBeansFailsStartUpNamingBoth() {
        runner.withUserConfiguration(Orders.class, OrdersTwice.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("topic 'orders' is declared twice, by NewTopic bean 'ordersTopic' and by"
                        + " NewTopics bean 'moreTopics'"));
    }

    /** spring-kafka's usual shape: the configuration class that declares the topics also takes the template. */
    @Configuration(proxyBeanMethods = false)
    static class StockPublisher {
        final KafkoTemplate<String, String> template;

        StockPublisher(KafkoTemplate<String, String> template) {
            this.template = template;
        }

        @Bean
        NewTopic stockLevels() {
            return TopicBuilder.name("stock-levels").partitions(5).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TopicsOverTheTemplate {
        @Bean
        NewTopics restockTopics(KafkoTemplate<String, String> template) {
            return new NewTopics(TopicBuilder.name("restock").partitions(3).build());
        }
    }

    @Test
    void topicBeansWhoseMakingNeedsTheTemplateAreCreatedWithAutoCreationOff() {
        runner.withUserConfiguration(StockPublisher.class, TopicsOverTheTemplate.class)
                .withPropertyValues("kafko.auto-create-topics=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.topic("stock-levels").orElseThrow().partitionCount()).isEqualTo(5);
                    assertThat(kafko.topic("restock").orElseThrow().partitionCount()).isEqualTo(3);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class ChildTopics {
        @Bean
        NewTopic childTopic() {
            return TopicBuilder.name("child-topic").partitions(4).build();
        }
    }

    @Test
    void aNewTopicBeanOfAChildContextIsCreatedOnTheParentsKafko() {
        runner.withPropertyValues("kafko.auto-create-topics=false").run(parent -> new ApplicationContextRunner()
                .withParent(parent)
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.auto-create-topics=false")
                .withUserConfiguration(ChildTopics.class, StockPublisher.class)
                .run(child -> {
                    assertThat(child).hasNotFailed();
                    assertThat(child.getBean(Kafko.class)).isSameAs(parent.getBean(Kafko.class));
                    Kafko kafko = parent.getBean(Kafko.class);
                    assertThat(kafko.topic("child-topic")).as("created at the child's start-up")
                            .hasValueSatisfying(topic -> assertThat(topic.partitionCount()).isEqualTo(4));
                    assertThat(kafko.topic("stock-levels")).as("a child's bean that needs the template, late")
                            .hasValueSatisfying(topic -> assertThat(topic.partitionCount()).isEqualTo(5));
                    KafkoTemplate<Object, Object> template = child.getBean(KafkoTemplate.class);
                    assertThat(template.send("child-topic", "c-1").join().topic()).isEqualTo("child-topic");
                }));
    }

    @Test
    void withKafkoSwitchedOffANewTopicBeanCreatesNothing() {
        runner.withUserConfiguration(Orders.class).withPropertyValues("kafko.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Kafko.class));
    }

    @Test
    void kafkaTopicConfigsMapOntoKafkosKeys() {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("retention.ms", "-1");
        configs.put("retention.bytes", "1048576");
        configs.put("segment.bytes", "2097152");
        configs.put("segment.ms", "3600000");
        configs.put("compression.type", "ZSTD");
        configs.put("max.message.bytes", "4096");
        configs.put("cleanup.policy", "delete");
        TopicConfig base = TopicConfig.builder().retention(Duration.ofDays(3)).compression(Compression.LZ4)
                .partitions(4).build();
        NewTopic topic = TopicBuilder.name("t").configs(configs).build();
        TopicConfig c = topic.applyTo(base);
        assertThat(c.retention()).isNull();
        assertThat(c.retentionBytes()).isEqualTo(1 << 20);
        assertThat(c.segmentBytes()).isEqualTo(2 << 20);
        assertThat(c.segmentAge()).isEqualTo(Duration.ofHours(1));
        assertThat(c.compression()).isEqualTo(Compression.ZSTD);
        assertThat(c.maxRecordBytes()).isEqualTo(4096);
        assertThat(c.partitions()).isEqualTo(4);
        assertThat(topic.numPartitions()).isEqualTo(-1);
        assertThat(TopicBuilder.name("t").config("compression.type", "uncompressed").build().applyTo(base).compression())
                .isEqualTo(Compression.NONE);
        assertThat(TopicBuilder.name("t").compression(Compression.ZSTD).config("compression.type", "producer").build()
                .applyTo(base).compression()).as("Kafka's default, the producer's codec: kafko.defaults'")
                .isEqualTo(Compression.LZ4);
        assertThat(TopicBuilder.name("t").partitions(3).partitions(5).build().numPartitions()).as("last one wins")
                .isEqualTo(5);
        assertThat(topic.toString()).startsWith("NewTopic[t: compression.type=ZSTD, segment.bytes=2097152,");
        assertThat(topic).isEqualTo(TopicBuilder.name("t").configs(configs).build())
                .isNotEqualTo(TopicBuilder.name("u").configs(configs).build())
                .hasSameHashCodeAs(TopicBuilder.name("t").configs(configs).build())
                .doesNotHaveSameHashCodeAs(TopicBuilder.name("u").configs(configs).build());
    }

    /** spring-kafka code declares one copy with replicas(1): it reads as it did; more copies kafko cannot keep. */
    @Test
    void oneReplicaIsWhatAKafkoTopicIsAndMoreAreRefusedNamingTheTopic() {
        assertThat(TopicBuilder.name("t").partitions(3).replicas(1).build())
                .isEqualTo(TopicBuilder.name("t").partitions(3).build());
        for (int replicas : new int[] {3, 0, -1}) {
            assertThatThrownBy(() -> TopicBuilder.name("t").replicas(replicas))
                    .isInstanceOf(InvalidConfigException.class)
                    .hasMessage("topic 't': replicas(" + replicas + ") cannot be kept: a kafko topic is one copy on one"
                            + " disk (replicas(1), or leave it out; fsync(...) sets when appends are forced to disk)");
        }
    }

    @Test
    void keysKafkoHasNoCounterpartForAndValuesOutOfRangeAreRefusedNamingTopicAndKey() {
        assertThatThrownBy(() -> TopicBuilder.name("t").config("min.insync.replicas", "2"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("topic 't': Kafka topic config 'min.insync.replicas' has no counterpart in kafko");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("cleanup.policy", "shred"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("cleanup.policy=shred is not a policy kafko has");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("compression.type", "gzip"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': compression.type=gzip is not a codec kafko has: uncompressed (or none), lz4 or"
                        + " zstd (producer leaves it to kafko.defaults)");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("retention.ms", "a week"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': retention.ms=a week is not a whole number");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("retention.bytes", "-2"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': retention.bytes=-2 must be -1 (no limit) or at least 0");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("max.message.bytes", "4294967296"))
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("is larger than");
        TopicBuilder largest = TopicBuilder.name("t").config("max.message.bytes", String.valueOf(Integer.MAX_VALUE));
        assertThatThrownBy(largest::build).as("an int, so the engine's limit names it")
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("topic 't': max.message.bytes=2147483647 is refused: maxRecordBytes must be"
                        + " between");
        assertThatThrownBy(() -> TopicBuilder.name("t").partitions(0).build())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("topic 't': partitions(0) is refused: partitions must be between 1 and");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("segment.bytes", "10").build())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("topic 't': segment.bytes=10 is refused: segmentBytes must be between 1024");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("segment.ms", "0").build())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("topic 't': segment.ms=0 is refused: segmentAge must be positive");
        assertThatThrownBy(() -> TopicBuilder.name("no/slash")).isInstanceOf(InvalidNameException.class);
    }

    @Test
    void aTopicOfAnExistingLogKeepsItsStoredConfigAndTheWarningNamesTheBean(@TempDir Path dir, CapturedOutput out) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withUserConfiguration(OrdersWithoutCount.class).run(context -> assertThat(context).hasNotFailed());
        onDir.withUserConfiguration(Orders.class).run(context -> {
            Topic orders = context.getBean(Kafko.class).topic("orders").orElseThrow();
            assertThat(orders.partitionCount()).isEqualTo(6);
            assertThat(orders.config().retention()).as("stored config stays").isEqualTo(Duration.ofSeconds(1));
        });
        assertThat(out).contains("NewTopic bean 'ordersTopic' asks for");
    }

    @Test
    void withModifyTopicConfigsAnExistingTopicTakesTheBeansAndThePropertiesConfig(@TempDir Path dir, CapturedOutput out) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withUserConfiguration(OrdersWithoutCount.class)
                .withPropertyValues("kafko.topics.payments.retention=1h")
                .run(context -> assertThat(context).hasNotFailed());
        onDir.withUserConfiguration(Orders.class)
                .withPropertyValues("kafko.modify-topic-configs=true", "kafko.topics.payments.retention=30d",
                        "kafko.topics.payments.compression=zstd")
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    TopicConfig orders = kafko.topic("orders").orElseThrow().config();
                    assertThat(orders.partitions()).isEqualTo(6);
                    assertThat(orders.retention()).isEqualTo(Duration.ofDays(1));
                    assertThat(orders.compression()).isEqualTo(Compression.LZ4);
                    TopicConfig payments = kafko.topic("payments").orElseThrow().config();
                    assertThat(payments.retention()).isEqualTo(Duration.ofDays(30));
                    assertThat(payments.compression()).isEqualTo(Compression.ZSTD);
                });
        assertThat(out).contains("Changing the config of topic 'orders' as NewTopic bean 'ordersTopic' asks:"
                        + " compression NONE (asked LZ4), retention PT1S (asked PT24H)")
                .contains("Changing the config of topic 'payments' as kafko.topics.payments asks: compression NONE"
                        + " (asked ZSTD), retention PT1H (asked PT720H)")
                .doesNotContain("set kafko.modify-topic-configs=true");
        // stored: a start without the property keeps it, and says how to change it (a key not declared, the codec
        // here, is no difference); a key changed at run time stays
        onDir.withPropertyValues("kafko.topics.payments.retention=2d").run(context -> {
            Topic payments = context.getBean(Kafko.class).topic("payments").orElseThrow();
            assertThat(payments.config().retention()).isEqualTo(Duration.ofDays(30));
            payments.alterConfig(payments.config().toBuilder().fsync(FsyncPolicy.EVERY_BATCH).build());
        });
        assertThat(out).contains("Topic 'payments' exists with another config than kafko.topics.payments asks for:"
                + " retention PT720H (asked PT48H). The stored config stays")
                .contains("set kafko.modify-topic-configs=true to change it");
        // with the property, only the keys a declaration names change: the codec and the run-time fsync stay
        onDir.withPropertyValues("kafko.modify-topic-configs=true", "kafko.topics.payments.retention=2d").run(context -> {
            TopicConfig payments = context.getBean(Kafko.class).topic("payments").orElseThrow().config();
            assertThat(payments.retention()).isEqualTo(Duration.ofDays(2));
            assertThat(payments.compression()).isEqualTo(Compression.ZSTD);
            assertThat(payments.fsync()).isEqualTo(FsyncPolicy.EVERY_BATCH);
        });
    }

    /** A configuration that takes the template: its NewTopic bean cannot be made while the provisioner is. */
    @Configuration(proxyBeanMethods = false)
    static class SendsAndDeclares {
        SendsAndDeclares(KafkoTemplate<Object, Object> template) {
        }

        @Bean
        NewTopic ordersTopic() {
            return TopicBuilder.name("orders").partitions(6).build();
        }
    }

    @Test
    void aNewTopicBeanWhoseMakingNeedsTheTemplateIsDeclaredOnceEverySingletonExists() {
        // the bean factory leaves it out of the look-up made while the provisioner is made (it is being made then)
        runner.withUserConfiguration(SendsAndDeclares.class).run(context -> {
            assertThat(context).hasNotFailed();
            Topic orders = context.getBean(Kafko.class).topic("orders").orElseThrow();
            assertThat(orders.partitionCount()).isEqualTo(6);
        });
        runner.withUserConfiguration(SendsAndDeclares.class).withPropertyValues("kafko.topics.orders.partitions=2")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining(
                        "topic 'orders' is declared twice, by kafko.topics.orders and by NewTopic bean 'ordersTopic'"));
        runner.withUserConfiguration(SendsAndDeclares.class, OrdersTwice.class).run(context -> assertThat(context)
                .getFailure().hasStackTraceContaining("topic 'orders' is declared twice"));
    }

    /** Sends one record to {@code test.send-to} while it is made: before any listener or runner, with its topic. */
    @Configuration(proxyBeanMethods = false)
    static class SendsWhileMade {
        SendsWhileMade(KafkoTemplate<Object, Object> template,
                       @Value("${test.send-to}") String topic) {
            template.send(topic, "made").join();
        }
    }

    @Test
    void topicsOfNewTopicAndOfNewTopicsBeansExistBeforeABeanThatSendsWhileItIsMade() {
        // each kind on its own: the look-up made with the provisioner must not skip either when the other is absent
        runner.withUserConfiguration(Orders.class, SendsWhileMade.class)
                .withPropertyValues("kafko.auto-create-topics=false", "test.send-to=orders").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().partitionCount())
                            .isEqualTo(6);
                });
        runner.withUserConfiguration(Several.class, SendsWhileMade.class)
                .withPropertyValues("kafko.auto-create-topics=false", "test.send-to=audit.DLT").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Kafko.class).topic("audit.DLT").orElseThrow().partitionCount())
                            .isEqualTo(2);
                });
    }

    @Test
    void aNewTopicsBeanWhoseMakingNeedsTheTemplateIsCreatedOnItsOwn() {
        // no NewTopic bean at all: the late look-up must still find the NewTopics one
        runner.withUserConfiguration(TopicsOverTheTemplate.class).withPropertyValues("kafko.auto-create-topics=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Kafko.class).topic("restock").orElseThrow().partitionCount())
                            .isEqualTo(3);
                });
    }

    @Test
    void aLateNewTopicBeanIsDeclaredAndItsTopicIsMadeAgainAfterADeleteWithAutoCreationOff() {
        runner.withUserConfiguration(SendsAndDeclares.class).withPropertyValues("kafko.auto-create-topics=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoTopicProvisioner provisioner = context.getBean(KafkoTopicProvisioner.class);
                    assertThat(provisioner.declares("orders")).isTrue();
                    assertThat(provisioner.mayCreate("orders")).isTrue();
                    assertThat(provisioner.declaredBy("orders")).isEqualTo("NewTopic bean 'ordersTopic'");
                    Kafko kafko = context.getBean(Kafko.class);
                    kafko.deleteTopic("orders");
                    assertThat(provisioner.ensure("orders", 1).partitionCount()).as("made again as declared")
                            .isEqualTo(6);
                });
    }

    /** As {@link SendsAndDeclares}, its topic leaving the partition count to kafko.defaults. */
    @Configuration(proxyBeanMethods = false)
    static class SendsAndDeclaresWithoutCount {
        SendsAndDeclaresWithoutCount(KafkoTemplate<Object, Object> template) {
        }

        @Bean
        NewTopic ordersTopic() {
            return TopicBuilder.name("orders").config("retention.ms", "1000").build();
        }
    }

    /** As {@link SendsAndDeclares}, asking for 2 partitions. */
    @Configuration(proxyBeanMethods = false)
    static class SendsAndDeclaresTwo {
        SendsAndDeclaresTwo(KafkoTemplate<Object, Object> template) {
        }

        @Bean
        NewTopic ordersTopic() {
            return TopicBuilder.name("orders").partitions(2).build();
        }
    }

    @Test
    void aLateNewTopicBeanWithoutACountKeepsAnExistingTopicsPartitionsAndOneWithFewerFailsStartUpNamingIt(
            @TempDir Path dir) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.defaults.partitions=1");
        onDir.withUserConfiguration(SendsAndDeclares.class).run(context -> assertThat(context).hasNotFailed());
        onDir.withUserConfiguration(SendsAndDeclaresWithoutCount.class).run(context -> {
            assertThat(context).as("no count of its own: the topic keeps its 6").hasNotFailed();
            assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().partitionCount()).isEqualTo(6);
        });
        onDir.withUserConfiguration(SendsAndDeclaresTwo.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("NewTopic bean 'ordersTopic' with 2 partitions would shrink topic 'orders',"
                        + " which has 6 partitions; partitions can only grow: ask for 6 or more"));
    }

    /** An application's own provisioner, which declares {@code orders} itself (from its own code). */
    @Configuration(proxyBeanMethods = false)
    static class OwnProvisioner {
        @Bean
        KafkoTopicProvisioner myTopics(Kafko kafko) {
            return new KafkoTopicProvisioner(kafko, Map.of("orders", TopicConfig.builder().partitions(2).build()),
                    false);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Audit {
        @Bean
        NewTopic auditTopic() {
            return TopicBuilder.name("audit").partitions(3).build();
        }
    }

    @Test
    void anApplicationsOwnProvisionerCreatesTheBeansTopicsAndATopicItDeclaresTooFailsStartUpNamingBoth() {
        runner.withUserConfiguration(OwnProvisioner.class, Audit.class).run(context -> {
            assertThat(context).hasNotFailed();
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("orders").orElseThrow().partitionCount()).isEqualTo(2);
            assertThat(kafko.topic("audit").orElseThrow().partitionCount()).isEqualTo(3);
        });
        // the bean asks for 6 partitions of a topic the provisioner declares with 2: neither wins without a word
        runner.withUserConfiguration(OwnProvisioner.class, Orders.class).run(context -> assertThat(context)
                .getFailure().hasStackTraceContaining("topic 'orders' is declared twice, by the KafkoTopicProvisioner"
                        + " bean 'myTopics' and by NewTopic bean 'ordersTopic': declare it in one place"));
    }
}
