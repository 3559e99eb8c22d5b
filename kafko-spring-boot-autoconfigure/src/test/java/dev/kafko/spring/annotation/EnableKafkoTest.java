package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;

/** @EnableKafko in a plain Spring context, without Boot's auto-configuration. */
class EnableKafkoTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    @Test
    void enableKafkoWiresListenersInAPlainSpringContext(@TempDir Path dir) {
        System.setProperty("enable-kafko-test.dir", dir.toString());
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(PlainConfig.class)) {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.producer("plain").send(null, "hi".getBytes()).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("hi");
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .containsExactly("plain");
        } finally {
            System.clearProperty("enable-kafko-test.dir");
        }
    }

    @Test
    void aListenerWithoutAContainerFactoryFailsNamingItAndWhereTheFactoryComesFrom() {
        assertThatThrownBy(() -> new AnnotationConfigApplicationContext(NoFactoryConfig.class).close())
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageContaining("@KafkoListener 'plain' on PlainListener.on: ")
                .hasMessageContaining("no KafkoListenerContainerFactory bean")
                .hasMessageContaining("kafko.enabled=false").hasMessageContaining("@EnableKafko");
    }

    @Test
    void aListenerInAChildContextUsesTheOnlyContainerFactoryOfItsParent(@TempDir Path dir) {
        // getBean(type), which made the container before, looks in the parent too: the check before it must as well
        System.setProperty("enable-kafko-test.dir", dir.toString());
        try (AnnotationConfigApplicationContext parent = new AnnotationConfigApplicationContext(ParentConfig.class);
             AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext()) {
            child.setParent(parent);
            child.register(NoFactoryConfig.class);
            child.refresh();
            parent.getBean(Kafko.class).producer("plain").send(null, "from-parent".getBytes()).join();
            KafkoTestUtils.waitForListeners(child, Duration.ofSeconds(20));
            assertThat(RECEIVED).contains("from-parent");
        } finally {
            System.clearProperty("enable-kafko-test.dir");
            RECEIVED.clear();
        }
    }

    /** A Kafko and a container factory that is not named kafkoListenerContainerFactory, and no listener. */
    @Configuration(proxyBeanMethods = false)
    static class ParentConfig {
        @Bean(destroyMethod = "close")
        Kafko kafko() {
            return Kafko.open(Path.of(System.getProperty("enable-kafko-test.dir")));
        }

        @Bean
        KafkoListenerContainerFactory factory(Kafko kafko) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko,
                    Map.of("plain", TopicConfig.DEFAULTS), false));
            return new KafkoListenerContainerFactory(backend, new RecordMessageConverter(
                    new CompositeMessageConverter(List.of(new StringMessageConverter()))));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableKafko
    static class NoFactoryConfig {
        @Bean
        PlainListener listener() {
            return new PlainListener();
        }
    }

    /** The parent's Kafko and factory (inherited bean methods), with listener processing and a listener. */
    @Configuration(proxyBeanMethods = false)
    @EnableKafko
    static class PlainConfig extends ParentConfig {
        @Bean
        PlainListener listener() {
            return new PlainListener();
        }
    }

    static class PlainListener {
        @KafkoListener(id = "plain", topics = "plain")
        void on(String text) {
            RECEIVED.add(text);
        }
    }
}
