package dev.kafko.spring.listener.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * A {@code @SendTo} reply keeps its request's key bytes, and hands the template the key as text when those bytes
 * are UTF-8: what a producer listener and the send's result see, as spring-kafka's replies carry the key its
 * deserializer made.
 */
class ReplyKeyTest {

    /** The key each reply's producer listener saw, by its value. */
    static final Map<String, Object> KEYS_SEEN = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Replier.class)
            .withBean("keys", ProducerListener.class, () -> new ProducerListener<Object, Object>() {
                @Override
                public void onSuccess(SendResult<Object, Object> result) {
                    if (result.topic().equals("replies")) {
                        KEYS_SEEN.put(String.valueOf(result.value()), result.key());
                    }
                }
            })
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aTextKeyIsRepliedAsTextAndOtherBytesAsTheyAreBothStoredUnchanged() {
        byte[] binary = {(byte) 0xff, (byte) 0xfe, 0, 1};
        runner.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.producer("requests").sendBatch(List.of(
                    OutgoingRecord.of("alice".getBytes(StandardCharsets.UTF_8), bytes("text")),
                    OutgoingRecord.of("żółw-🐢".getBytes(StandardCharsets.UTF_8), bytes("unicode")),
                    OutgoingRecord.of(binary, bytes("binary")))).join();
            await().atMost(Duration.ofSeconds(20)).until(() -> KEYS_SEEN.size() == 3);

            assertThat(KEYS_SEEN.get("re:text")).isEqualTo("alice");
            assertThat(KEYS_SEEN.get("re:unicode")).isEqualTo("żółw-🐢");
            assertThat(KEYS_SEEN.get("re:binary")).isInstanceOf(byte[].class).isEqualTo(binary);
            List<KafkoRecord> replies = KafkoTestUtils.records(kafko, "replies");
            assertThat(replies).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                    .containsExactly("re:text", "re:unicode", "re:binary");
            assertThat(replies.get(0).key()).isEqualTo("alice".getBytes(StandardCharsets.UTF_8));
            assertThat(replies.get(1).key()).isEqualTo("żółw-🐢".getBytes(StandardCharsets.UTF_8));
            assertThat(replies.get(2).key()).isEqualTo(binary);
        });
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static class Replier {
        @KafkoListener(id = "replier", topics = "requests")
        @SendTo("replies")
        String reply(String value) {
            return "re:" + value;
        }
    }
}
