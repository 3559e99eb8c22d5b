package dev.kafko.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.support.MessageBuilder;

/** A listener of an object type in an application without Jackson: its records fail naming what is missing. */
@ExtendWith(OutputCaptureExtension.class)
class WithoutJacksonListenerTest {

    static final List<Object> RECEIVED = new CopyOnWriteArrayList<>();

    @Test
    void aRecordForAnObjectParameterFailsSayingObjectsAreReadAsJsonWithJackson(CapturedOutput output) {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("tools.jackson"))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.fees.partitions=1")
                .withBean(Fees.class).run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
                    template.send("fees", "{\"amount\":3}").join();
                    template.send("texts", "plain").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(RECEIVED).containsExactly("plain");
                    assertThat(output).contains("into a " + Fee.class.getName())
                            .contains("objects are read as JSON, with Jackson 3 (tools.jackson.core:jackson-databind)"
                                    + " on the class path, and it is not");
                });
    }

    /**
     * A header of an object type, without Jackson: its failure names the header's bytes, not "the record" (whose
     * value reads as the listener's {@code String} well enough), and says that objects are read as JSON with Jackson.
     */
    @Test
    void aHeaderForAnObjectParameterFailsNamingTheHeaderBytesNotTheRecord(CapturedOutput output) {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("tools.jackson"))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.payers.partitions=1")
                .withBean(Payers.class).run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
                    template.send(MessageBuilder.withPayload("fee").setHeader(KafkoHeaders.TOPIC, "payers")
                            .setHeader("payer", "{\"amount\":3}".getBytes(StandardCharsets.UTF_8)).build()).join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(PAYERS).isEmpty();
                    assertThat(output).contains("12 bytes (a record's value, key or header) cannot be read into a "
                                    + Fee.class.getName())
                            .contains("objects are read as JSON, with Jackson 3 (tools.jackson.core:jackson-databind)"
                                    + " on the class path, and it is not")
                            .doesNotContain("A record cannot be read");
                });
    }

    static final List<Object> PAYERS = new CopyOnWriteArrayList<>();

    record Fee(int amount) {
    }

    static class Payers {
        @KafkoListener(id = "payers", topics = "payers")
        void on(String value, @Header("payer") Fee payer) {
            PAYERS.add(payer);
        }
    }

    static class Fees {
        @KafkoListener(id = "fees", topics = "fees")
        void on(Fee fee) {
            RECEIVED.add(fee);
        }

        @KafkoListener(id = "texts", topics = "texts")
        void on(String text) {
            RECEIVED.add(text);
        }
    }
}
