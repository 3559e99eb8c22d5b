package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** {@code kafko.listener.auto-startup} and {@code kafko.listener.type}, Spring Boot's two listener defaults. */
class ListenerDefaultsPropertiesTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void clear() {
        HEARD.clear();
    }

    @Test
    void withoutAutoStartupOnlyAListenerThatAsksToStartReadsUntilTheOthersAreStarted() {
        runner.withBean(Listeners.class).withPropertyValues("kafko.listener.auto-startup=false").run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainer("single").isRunning()).isFalse();
            assertThat(registry.getListenerContainer("starts").isRunning()).as("its autoStartup attribute").isTrue();

            template(context).send("words", "a").join();
            template(context).send("starting", "b").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(HEARD).containsExactly("starts:b");

            registry.getListenerContainer("single").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(HEARD).containsExactly("starts:b", "single:a");
        });
    }

    @Test
    void byDefaultEveryListenerStartsAndTakesOneRecordPerCall() {
        runner.withBean(Listeners.class).run(context -> {
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("single").isRunning())
                    .isTrue();
            template(context).send("words", "a").join();
            template(context).send("words", "b").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(HEARD).containsExactly("single:a", "single:b");
        });
    }

    @Test
    void typeBatchMakesAListenerWithoutABatchAttributeTakeThePollAsAList() {
        runner.withBean(BatchByDefault.class).withPropertyValues("kafko.listener.type=batch").run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.getListenerContainer("list").stop();
            registry.getListenerContainer("one").stop();
            for (String word : List.of("a", "b", "c")) {
                template(context).send("letters", word).join();
            }
            registry.getListenerContainer("list").start();
            registry.getListenerContainer("one").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // one poll of all three for the batch listener; the one that says batch = "false" gets one at a time
            assertThat(HEARD).filteredOn(h -> h.startsWith("list:")).containsExactly("list:[a, b, c]");
            assertThat(HEARD).filteredOn(h -> h.startsWith("one:")).containsExactly("one:a", "one:b", "one:c");
        });
    }

    @Test
    void aTypeThatIsNeitherFailsTheStartNamingTheProperty() {
        runner.withBean(Listeners.class).withPropertyValues("kafko.listener.type=bulk").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("bulk");
            assertThat(context.getStartupFailure()).hasStackTraceContaining("kafko.listener.type");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Listeners {
        @KafkoListener(id = "single", topics = "words")
        void single(String word) {
            HEARD.add("single:" + word);
        }

        @KafkoListener(id = "starts", topics = "starting", autoStartup = "true")
        void starts(String word) {
            HEARD.add("starts:" + word);
        }
    }

    static class BatchByDefault {
        @KafkoListener(id = "list", topics = "letters")
        void list(List<String> words) {
            HEARD.add("list:" + words);
        }

        @KafkoListener(id = "one", topics = "letters", batch = "false")
        void one(String word) {
            HEARD.add("one:" + word);
        }
    }
}
