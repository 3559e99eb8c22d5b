package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Listener methods a class proxy made after kafko's post-processor cannot route to the bean. */
class ProxiedListenerEdgeTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final AtomicInteger ADVISED = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void clear() {
        RECEIVED.clear();
        ADVISED.set(0);
    }

    /**
     * A final method of a CGLIB proxy runs on the proxy itself, whose fields were never set: the listener got
     * "nulla" (before the swap to the exposed object it got "prefix:a").
     */
    @Test
    void aFinalListenerMethodIsNotCalledOnTheFieldlessProxy() {
        runner.withUserConfiguration(FinalConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            send(context, "final-topic", "a");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("prefix:a");
        });
    }

    /**
     * A private method worked before the swap; it failed start-up with "bean 'withPrivate' is exposed as a JDK
     * proxy", of a class proxy.
     */
    @Test
    void aPrivateListenerMethodBehindALateClassProxyStillWorks() {
        runner.withUserConfiguration(PrivateConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            send(context, "private-topic", "b");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("b");
        });
    }

    private static void send(org.springframework.context.ApplicationContext context, String topic, String... values) {
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (String v : values) {
            template.send(topic, v).join();
        }
    }

    static final class LateClassProxying implements BeanPostProcessor {
        private final String name;

        LateClassProxying(String name) {
            this.name = name;
        }

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!beanName.equals(name)) {
                return bean;
            }
            ProxyFactory factory = new ProxyFactory(bean);
            factory.setProxyTargetClass(true);
            factory.addAdvice((MethodInterceptor) invocation -> {
                ADVISED.incrementAndGet();
                return invocation.proceed();
            });
            return factory.getProxy();
        }
    }

    static class WithFinal {
        private final StringBuilder prefix = new StringBuilder("prefix:");

        @KafkoListener(id = "final-l", topics = "final-topic")
        public final void on(String value) {
            RECEIVED.add(prefix + value);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FinalConfig {
        @Bean
        static BeanPostProcessor lateProxying() {
            return new LateClassProxying("withFinal");
        }

        @Bean
        WithFinal withFinal() {
            return new WithFinal();
        }
    }

    static class WithPrivate {
        @KafkoListener(id = "private-l", topics = "private-topic")
        private void on(String value) {
            RECEIVED.add(value);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrivateConfig {
        @Bean
        static BeanPostProcessor lateProxying() {
            return new LateClassProxying("withPrivate");
        }

        @Bean
        WithPrivate withPrivate() {
            return new WithPrivate();
        }
    }
}
