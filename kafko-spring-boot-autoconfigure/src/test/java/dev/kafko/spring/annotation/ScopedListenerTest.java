package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;
import org.springframework.context.support.SimpleThreadScope;

/**
 * A listener on a bean of a scope with a proxy (as a refresh scope makes them) is registered once, on the
 * proxy: the instances the scope makes are not listeners of their own, which would read every record a
 * second time in another group, or, with an explicit id, fail each record as a duplicate listener.
 */
class ScopedListenerTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    @Test
    void aScopedProxyListenerReadsEachRecordOnce() {
        RECEIVED.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(Scoped.class).withPropertyValues("kafko.ephemeral=true").run(context -> {
                    assertThat(context).hasNotFailed();
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    for (String v : List.of("a", "b", "c")) {
                        template.send("scoped", v).join();
                    }
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(RECEIVED).containsExactly("a", "b", "c");
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                            .containsExactly("scoped");
                    // the proxy handed out again (a lookup) registers nothing more
                    assertThat(context.getBean("scopedListener")).isNotNull();
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                            .containsExactly("scoped");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Scoped {
        @Bean
        static BeanFactoryPostProcessor threadScope() {
            return factory -> factory.registerScope("thread", new SimpleThreadScope());
        }

        @Bean
        @Scope(value = "thread", proxyMode = ScopedProxyMode.TARGET_CLASS)
        Listener scopedListener() {
            return new Listener();
        }

        /** A bean that has the proxy injected at start-up, as most of an application's are. */
        @Bean
        Object usesTheListener(Listener scopedListener) {
            return scopedListener;
        }
    }

    static class Listener {
        @KafkoListener(id = "scoped", topics = "scoped")
        void on(String value) {
            RECEIVED.add(value);
        }
    }
}
