package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * {@code @KafkoListener(containerFactory = ...)}: a second factory, copied from the auto-configured one,
 * builds the containers of the listeners that name it, beside the default one; an unknown name fails the
 * start naming the listener and the factories there are.
 */
class ContainerFactoryTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aListenerNamingASecondFactoryGetsItsSettingsAndTheOthersKeepTheDefault() {
        RECEIVED.clear();
        runner.withUserConfiguration(ManualFactory.class).withBean(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeansOfType(KafkoListenerContainerFactory.class))
                    .containsOnlyKeys("kafkoListenerContainerFactory", "manualAcks");
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("manual", "m").join();
            template.send("plain", "p").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("manual:m", "plain:p");
            Kafko kafko = context.getBean(Kafko.class);
            // the manual listener acknowledged, the other one committed by the default ack mode (batch)
            assertThat(kafko.groupConsumer("manual", "manual-listener").committed(0)).hasValue(1);
            assertThat(kafko.groupConsumer("plain", "plain-listener").committed(0)).hasValue(1);
        });
    }

    @Test
    void aSendToListenerOnAFactoryOfTheApplicationsOwnWithoutAReplyTemplateFailsTheStartSayingSo() {
        // one KafkoTemplate bean: the message must not say there is none, but point at the factory's reply template
        runner.withUserConfiguration(OwnFactoryWithoutReplies.class).withBean(Replier.class).run(context -> assertThat(
                context).hasFailed().getFailure().hasStackTraceContaining("Listener 'replier' has @SendTo(\"out\") but"
                        + " its container factory has no KafkoTemplate to send its replies with")
                .hasStackTraceContaining("setReplyTemplate")
                .rootCause().message().doesNotContain("there was none"));
    }

    @Test
    void anUnknownContainerFactoryFailsTheStartNamingTheListenerAndTheFactories() {
        runner.withBean(UnknownFactory.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("@KafkoListener 'lost' on UnknownFactory.on: containerFactory 'nope' is no"
                        + " KafkoListenerContainerFactory bean; the factories are [kafkoListenerContainerFactory]"));
    }

    /** As in spring-kafka, the expression may give the factory itself; it was refused as "not text". */
    @Test
    void aContainerFactoryExpressionGivingTheFactoryItselfPicksIt() {
        runner.withUserConfiguration(ManualFactory.class).withBean(ByExpression.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(((dev.kafko.spring.listener.ConcurrentMessageListenerContainer) context.getBean(
                    dev.kafko.spring.config.KafkoListenerEndpointRegistry.class).getListenerContainer("by-expression"))
                    .getContainerProperties().ackMode()).isEqualTo(AckMode.MANUAL);
        });
    }

    @Test
    void aContainerFactoryExpressionGivingAFactoryThatIsNoBeanFailsTheStartNamingTheListener() {
        runner.withBean(NoBeanFactory.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("@KafkoListener 'unmanaged' on NoBeanFactory.on: containerFactory"
                        + " '#{@kafkoListenerContainerFactory.copy()}' resolved to a KafkoListenerContainerFactory that"
                        + " is no bean; the factories are [kafkoListenerContainerFactory]"));
    }

    @Configuration(proxyBeanMethods = false)
    static class ManualFactory {
        @Bean
        KafkoListenerContainerFactory manualAcks(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            KafkoListenerContainerFactory f = kafkoListenerContainerFactory.copy();
            f.setContainerProperties(f.getContainerProperties().withAckMode(AckMode.MANUAL));
            return f;
        }
    }

    static class Listeners {
        @KafkoListener(id = "manual-listener", topics = "manual", containerFactory = "manualAcks")
        void manual(String value, Acknowledgment ack) {
            RECEIVED.add("manual:" + value);
            ack.acknowledge();
        }

        @KafkoListener(id = "plain-listener", topics = "plain")
        void plain(String value) {
            RECEIVED.add("plain:" + value);
        }
    }

    static class UnknownFactory {
        @KafkoListener(id = "lost", topics = "t", containerFactory = "nope")
        void on(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFactoryWithoutReplies {
        @Bean
        KafkoListenerContainerFactory kafkoListenerContainerFactory(LogBackend backend, RecordMessageConverter converter) {
            return new KafkoListenerContainerFactory(backend, converter);
        }
    }

    static class Replier {
        @KafkoListener(id = "replier", topics = "in")
        @SendTo("out")
        String reply(String in) {
            return in;
        }
    }

    static class ByExpression {
        @KafkoListener(id = "by-expression", topics = "t", containerFactory = "#{@manualAcks}")
        void on(String value, Acknowledgment ack) {
        }
    }

    static class NoBeanFactory {
        @KafkoListener(id = "unmanaged", topics = "t", containerFactory = "#{@kafkoListenerContainerFactory.copy()}")
        void on(String value) {
        }
    }
}
