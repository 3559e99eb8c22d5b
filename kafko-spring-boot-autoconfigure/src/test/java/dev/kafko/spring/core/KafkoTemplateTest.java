package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.InvalidNameException;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.Order;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.SendResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.support.MessageBuilder;

class KafkoTemplateTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.t.partitions=3");

    @Test
    void stringsAndBytesGoAsTheyAreAndObjectsAsJsonWithATypeHeader() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            SendResult<Object, Object> first = template.send("t", 0, "k", "text").join();
            template.send("t", 0, null, new byte[] {7}).join();
            template.send("t", 0, "o", new Order("o-1", 5)).join();

            assertThat(first.topic()).isEqualTo("t");
            assertThat(first.partition()).isZero();
            assertThat(first.offset()).isZero();
            assertThat(first.timestamp()).isPositive();
            assertThat(first.key()).isEqualTo("k");
            assertThat(first.value()).isEqualTo("text");
            List<KafkoRecord> records = poll(context, "t");
            assertThat(records).hasSize(3);
            assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("text");
            assertThat(records.get(0).headers().isEmpty()).isTrue();
            assertThat(records.get(1).value()).containsExactly(7);
            assertThat(records.get(1).key()).isNull();
            assertThat(new String(records.get(2).value(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"o-1\",\"amount\":5}");
            assertThat(records.get(2).headers().lastHeader(KafkoHeaders.TYPE).valueAsString())
                    .isEqualTo(Order.class.getName());
        });
    }

    @Test
    void aSendOrAFlushAfterTheLogClosedThrowsKafkoClosedExceptionAtTheCall() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("t", "before").join();
            context.getBean(Kafko.class).close();
            assertThatThrownBy(() -> template.send("t", "after")).isInstanceOf(dev.kafko.KafkoClosedException.class);
            assertThatThrownBy(template::flush).isInstanceOf(dev.kafko.KafkoClosedException.class);
        });
    }

    @Test
    void aTopicDeletedUnderTheTemplateIsFoundAgainOnceItExistsAndCreatedAgainWhereTopicsAreCreatedOnUse() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            Kafko kafko = context.getBean(Kafko.class);
            template.send("t", 0, null, "before").join();
            kafko.deleteTopic("t");
            // kafko.auto-create-topics (the default): the next send creates the topic again
            assertThat(template.send("t", "after").join().offset()).isZero();
            assertThat(kafko.topic("t")).isPresent();
            kafko.deleteTopic("t");
            kafko.createTopic("t", dev.kafko.TopicConfig.builder().partitions(2).build());
            assertThat(template.send("t", 1, null, "again").join().offset()).isZero();
            assertThat(poll(context, "t")).hasSize(1);
        });
        // a topic not declared in kafko.topics, without auto-creation: gone until someone creates it again
        runner.withPropertyValues("kafko.auto-create-topics=false").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("u");
            template.send("u", "before").join();
            kafko.deleteTopic("u");
            assertThatThrownBy(() -> template.send("u", "gone")).isInstanceOf(dev.kafko.UnknownTopicException.class);
            kafko.createTopic("u");
            assertThat(template.send("u", "back").join().offset()).isZero();
        });
    }

    @Test
    void aTemplateThatSendsToShortLivedTopicsKeepsNoHandleOnEachOneDeleted() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            Kafko kafko = context.getBean(Kafko.class);
            template.send("t", 0, null, "kept").join();
            // a tenant's topic each: created, sent to, deleted; the template never sends to one again, nor flushes
            for (int tenant = 0; tenant < 200; tenant++) {
                template.send("tenant-" + tenant, "record").join();
                kafko.deleteTopic("tenant-" + tenant);
            }
            // each cached producer holds its topic's partitions: 200 deleted topics held for ever before
            assertThat(template.cachedProducers()).as("t's kept, no more than 32").isBetween(1, 32);
            assertThat(template.send("t", 0, null, "still").join().offset()).isEqualTo(1);
            template.send("tenant-0", "again").join();
            assertThat(kafko.topic("tenant-0")).as("created again on use").isPresent();
            template.flush();
            assertThat(poll(context, "t")).hasSize(2);
        });
    }

    @Test
    void aTopicCreatedAgainAfterTheTemplateSentToItIsWrittenWhenTheTemplateLooksForDeletedTopics() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            Kafko kafko = context.getBean(Kafko.class);
            template.send("t", "first").join();
            kafko.deleteTopic("t");
            kafko.createTopic("t", dev.kafko.TopicConfig.builder().partitions(3).build());
            // enough new topics for the template to look through its producers: t's is of the deleted topic
            for (int i = 0; i < 100; i++) {
                template.send("other-" + i, "record").join();
            }
            assertThat(template.send("t", 2, null, "second").join().offset()).isZero();
            assertThat(poll(context, "t")).hasSize(1);
        });
    }

    @Test
    void flushCompletesEverySendThatLingers() {
        runner.withPropertyValues("kafko.linger=1h").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            for (int i = 0; i < 10_000 && sent.stream().allMatch(CompletableFuture::isDone); i++) {
                sent.add(template.send("t", 1, null, "v" + i));
            }
            assertThat(sent.get(sent.size() - 1)).as("a send that lingers").isNotDone();
            KafkoOperations<Object, Object> operations = template;
            operations.flush();
            assertThat(sent).allSatisfy(f -> assertThat(f).isCompleted());
            assertThat(sent.get(sent.size() - 1).join().offset()).isEqualTo(sent.size() - 1);
        });
    }

    @Test
    void keyedRecordsStayOnTheirPartitionAndExplicitPartitionsWin() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            int partition = template.send("t", "same-key", "a").join().partition();
            for (int i = 0; i < 5; i++) {
                assertThat(template.send("t", "same-key", "b" + i).join().partition()).isEqualTo(partition);
            }
            int other = (partition + 1) % 3;
            assertThat(template.send("t", other, "same-key", "c").join().partition()).isEqualTo(other);
        });
    }

    @Test
    void aMessageIsRoutedByItsHeadersAndCarriesTheOthersAsRecordHeaders() {
        runner.run(context -> {
            SendResult<Object, Object> result = template(context).send(MessageBuilder.withPayload("body")
                    .setHeader(KafkoHeaders.TOPIC, "t").setHeader(KafkoHeaders.PARTITION, 2)
                    .setHeader(KafkoHeaders.KEY, "k").setHeader(KafkoHeaders.TIMESTAMP, 1234L)
                    .setHeader("trace", "abc").build()).join();
            assertThat(result.partition()).isEqualTo(2);
            assertThat(result.timestamp()).isEqualTo(1234L);
            KafkoRecord record = poll(context, "t").get(0);
            assertThat(record.timestamp()).isEqualTo(1234L);
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("k");
            assertThat(record.headers().lastHeader("trace").valueAsString()).isEqualTo("abc");
            assertThat(record.headers().lastHeader(KafkoHeaders.TOPIC)).isNull();
            assertThat(record.headers().lastHeader("id")).isNull();
        });
    }

    @Test
    void aTopicHeaderOfBytesRoutesAsItsTextAsSpringKafkasDoesAndOneOfAnotherTypeIsRefusedNamingIt() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            // a reply topic received as bytes (@Header(REPLY_TOPIC) byte[]) set as the topic of the reply
            SendResult<Object, Object> result = template.send(MessageBuilder.withPayload("reply")
                    .setHeader(KafkoHeaders.TOPIC, "t".getBytes(StandardCharsets.UTF_8))
                    .setHeader(KafkoHeaders.PARTITION, 1).build()).join();
            assertThat(result.topic()).isEqualTo("t");
            assertThat(result.partition()).isEqualTo(1);
            assertThat(poll(context, "t")).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                    .containsExactly("reply");
            assertThatThrownBy(() -> template.send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, 7)
                    .build())).isInstanceOf(IllegalStateException.class)
                    .hasMessage(KafkoHeaders.TOPIC + " must be a String or byte[], not java.lang.Integer");
        });
    }

    @Test
    void aMessagesContentTypeIsWrittenAsItsTextAndSpringsIdAndTimestampAreNot() {
        runner.run(context -> {
            template(context).send(MessageBuilder.withPayload("body").setHeader(KafkoHeaders.TOPIC, "t")
                    .setHeader(org.springframework.messaging.MessageHeaders.CONTENT_TYPE,
                            org.springframework.util.MimeTypeUtils.TEXT_PLAIN).build()).join();
            KafkoRecord record = poll(context, "t").get(0);
            assertThat(record.headers().lastHeader("contentType").valueAsString()).isEqualTo("text/plain");
            assertThat(record.headers().lastHeader("id")).isNull();
            assertThat(record.headers().lastHeader("timestamp")).isNull();
        });
    }

    @Test
    void aNegativeTimestampIsRefusedAsAnArgumentAndAsAHeaderAlikeAndNothingIsWritten() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThatThrownBy(() -> template.send("t", 0, -1L, null, "v")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a record's timestamp must not be negative, was -1");
            for (long ts : new long[] {-1, -5}) {
                assertThatThrownBy(() -> template.send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "t")
                        .setHeader(KafkoHeaders.TIMESTAMP, ts).build()))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("the " + KafkoHeaders.TIMESTAMP + " header must not be negative, was " + ts);
            }
            assertThat(poll(context, "t")).isEmpty();
        });
    }

    @Test
    void aReceivedMessageForwardedAsItIsCarriesNoneOfTheReceivedRecordsHeaders() {
        runner.run(context -> {
            template(context).send(MessageBuilder.withPayload(new Order("o-2", 3))
                    .setHeader(KafkoHeaders.TOPIC, "t").setHeader(KafkoHeaders.PARTITION, 1)
                    .setHeader(KafkoHeaders.RECEIVED_KEY, "old-key".getBytes(StandardCharsets.UTF_8))
                    .setHeader(KafkoHeaders.RECEIVED_TOPIC, "in").setHeader(KafkoHeaders.RECEIVED_PARTITION, 0)
                    .setHeader(KafkoHeaders.OFFSET, 41L).setHeader(KafkoHeaders.RECEIVED_TIMESTAMP, 99L)
                    .setHeader(KafkoHeaders.GROUP_ID, "g").setHeader(KafkoHeaders.LISTENER_ID, "l")
                    .setHeader(KafkoHeaders.ACKNOWLEDGMENT, new Object()).setHeader(KafkoHeaders.RAW_DATA, new Object())
                    .setHeader(KafkoHeaders.TYPE, "com.example.Stale".getBytes(StandardCharsets.UTF_8))
                    .setHeader("trace", "abc").build()).join();
            KafkoRecord record = poll(context, "t").get(0);
            assertThat(record.key()).isNull();
            assertThat(record.headers()).extracting(dev.kafko.Header::key).containsExactly("trace", KafkoHeaders.TYPE);
            assertThat(record.headers().lastHeader(KafkoHeaders.TYPE).valueAsString()).isEqualTo(Order.class.getName());
        });
    }

    @Test
    void aRecordTooLargeFailsTheFutureAsKafkaDoesAndTellsTheProducerListener() {
        List<String> failures = new ArrayList<>();
        runner.withPropertyValues("kafko.defaults.max-record-size=1KB").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.setProducerListener(new dev.kafko.spring.support.ProducerListener<>() {
                @Override
                public void onError(String topic, Integer partition, Object key, Object value, Throwable exception) {
                    failures.add(topic + ":" + exception.getClass().getSimpleName());
                }
            });
            CompletableFuture<SendResult<Object, Object>> sent = template.send("t", "x".repeat(2000));
            assertThat(sent).failsWithin(Duration.ofSeconds(1)).withThrowableThat()
                    .havingRootCause().isInstanceOf(dev.kafko.RecordTooLargeException.class);
            assertThat(failures).containsExactly("t:RecordTooLargeException");
            assertThat(poll(context, "t")).isEmpty();
            assertThatThrownBy(() -> template.send(null, "x")).isInstanceOf(NullPointerException.class).hasMessage("topic");
        });
    }

    @Test
    void aSendWithATimestampCarriesItToTheRecordAndItsResultAsSpringKafkasDoes() {
        runner.withPropertyValues("kafko.template.default-topic=t").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            SendResult<Object, Object> stamped = template.send("t", 2, 1_600_000_000_000L, "k", "v").join();
            SendResult<Object, Object> clocked = template.send("t", null, null, "k", "w").join();
            SendResult<Object, Object> byDefault = template.sendDefault(1, "k", "x").join();
            SendResult<Object, Object> byDefaultStamped = template.sendDefault(0, 42L, null, "y").join();

            assertThat(stamped.partition()).isEqualTo(2);
            assertThat(stamped.timestamp()).isEqualTo(1_600_000_000_000L);
            assertThat(clocked.partition()).isEqualTo(template.send("t", "k", "z").join().partition()); // by its key
            assertThat(clocked.timestamp()).isGreaterThan(1_600_000_000_000L);
            assertThat(byDefault.partition()).isEqualTo(1);
            assertThat(byDefaultStamped.partition()).isZero();
            assertThat(byDefaultStamped.timestamp()).isEqualTo(42L);
            List<KafkoRecord> records = poll(context, "t");
            assertThat(records).filteredOn(r -> r.partition() == 2 && r.offset() == stamped.offset()).singleElement()
                    .satisfies(r -> assertThat(r.timestamp()).isEqualTo(1_600_000_000_000L));
            assertThat(records).filteredOn(r -> r.partition() == 0 && r.offset() == byDefaultStamped.offset())
                    .singleElement().satisfies(r -> assertThat(r.timestamp()).isEqualTo(42L));
            assertThatThrownBy(() -> template.send("t", 0, -5L, null, "neg"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-5");
        });
    }

    @Test
    void sendDefaultUsesTheConfiguredTopicAndOtherwiseSaysWhatToSet() {
        runner.withPropertyValues("kafko.template.default-topic=t").run(context -> {
            assertThat(template(context).sendDefault("x").join().topic()).isEqualTo("t");
            assertThat(template(context).sendDefault("k", "y").join().key()).isEqualTo("k");
        });
        runner.run(context -> assertThatThrownBy(() -> template(context).sendDefault("x"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("kafko.template.default-topic"));
    }

    @Test
    void aBlankDefaultTopicIsNoneAsAnUnsetPlaceholderLeavesIt() {
        runner.withPropertyValues("kafko.template.default-topic=${DEFAULT_TOPIC:}").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(template(context).getDefaultTopic()).isNull();
            assertThatThrownBy(() -> template(context).sendDefault("x")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("kafko.template.default-topic");
        });
    }

    @Test
    void anIllegalDefaultTopicFailsTheStartNamingTheRule() {
        runner.withPropertyValues("kafko.template.default-topic=orders/eu").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("orders/eu").hasMessageContaining("[A-Za-z0-9._-]");
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "kafko.template.default-topic topic name 'orders/eu' is invalid");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static List<KafkoRecord> poll(ApplicationContext context, String topic) {
        try (var consumer = context.getBean(Kafko.class).consumer(topic)) {
            return consumer.poll(Duration.ofSeconds(2));
        }
    }
}
