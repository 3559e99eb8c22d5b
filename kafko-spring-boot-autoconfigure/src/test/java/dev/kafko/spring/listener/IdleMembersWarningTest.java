package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * More members than partitions is warned of once per topic and partition count, not at each restart of the
 * container (a test suite's cached contexts stop and start their listeners again and again).
 */
class IdleMembersWarningTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Reader.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.concurrency=3", "kafko.topics.few.partitions=2");

    @RegisterExtension
    final LogCapture log = new LogCapture(ConcurrentMessageListenerContainer.class);

    @Test
    void idleMembersAreWarnedOfOncePerPartitionCountNotAtEachRestart() {
        runner.run(context -> {
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("few");
            for (int i = 0; i < 3; i++) {
                container.stop();
                container.start();
            }
            assertThat(warnings()).containsExactly(
                    "Listener 'few' has concurrency 3 but topic 'few' has 2 partition(s): 1 member(s) will idle");
            context.getBean(Kafko.class).topic("few").orElseThrow().increasePartitions(3);
            container.stop();
            container.start();
            assertThat(warnings()).as("enough partitions now").hasSize(1);
        });
    }

    private java.util.List<String> warnings() {
        return log.events().stream().filter(e -> e.getLevel() == Level.WARN).map(e -> e.getFormattedMessage()).toList();
    }

    static class Reader {
        @KafkoListener(id = "few", topics = "few")
        void read(String value) {
        }
    }
}
