package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Contexts as applications and frameworks shape them: hierarchies, lazy ones. */
class ContextShapesTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    @Test
    void aChildContextRunsItsOwnListenersOnTheParentsLog() {
        runner.run(parent -> new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withParent(parent)
                .withBean(ChildListener.class)
                .run(child -> {
                    assertThat(child.getBean(KafkoListenerEndpointRegistry.class))
                            .isNotSameAs(parent.getBean(KafkoListenerEndpointRegistry.class));
                    template(parent).send("family", "from the parent").join();
                    KafkoTestUtils.waitForListeners(child, Duration.ofSeconds(10));
                    assertThat(RECEIVED).containsExactly("from the parent");
                    assertThat(child.getBean(dev.kafko.Kafko.class)).isSameAs(parent.getBean(dev.kafko.Kafko.class));
                }));
    }

    @Test
    void underLazyInitializationTheLogIsOpenedAndItsTopicsDeclaredAtStartUp(@TempDir Path dir) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withInitializer(context -> context.addBeanFactoryPostProcessor(
                        new LazyInitializationBeanFactoryPostProcessor()))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.declared.partitions=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(dir.resolve(".lock")).exists();
                    assertThat(dir.resolve("declared")).isDirectory();
                    try (var files = Files.list(dir.resolve("declared"))) {
                        assertThat(files.filter(Files::isDirectory).count()).isEqualTo(2);
                    }
                });
        // a partition count that would shrink fails the start, not the first send
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withInitializer(context -> context.addBeanFactoryPostProcessor(
                        new LazyInitializationBeanFactoryPostProcessor()))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.declared.partitions=1")
                .run(context -> assertThat(context).hasFailed());
    }

    static class ChildListener {
        @KafkoListener(id = "child", topics = "family")
        void onRecord(String value) {
            RECEIVED.add(value);
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
