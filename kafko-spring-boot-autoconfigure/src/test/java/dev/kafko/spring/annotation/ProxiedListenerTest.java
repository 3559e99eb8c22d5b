package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import dev.kafko.KafkoRecord;
import java.nio.charset.StandardCharsets;
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
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * Listeners on proxied beans are called through the proxy the context exposes, with the annotations the
 * application wrote: a proxy made by a post-processor that runs after kafko's (Boot's method validation, any
 * plain {@code BeanPostProcessor} bean) keeps its advice, and a bean behind a JDK proxy, called through its
 * interface's method, keeps its class's {@code @SendTo} or fails start-up for the parameter annotations the
 * interface's method lacks.
 */
class ProxiedListenerTest {

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

    @Test
    void aListenerIsCalledThroughTheProxyOfAPostProcessorThatRunsAfterKafkos() {
        runner.withUserConfiguration(LateProxy.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("advised").getClass().getName()).contains("SpringCGLIB");
            send(context, "late", "a", "b");
            send(context, "late-handlers", "c");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("a", "b", "handler:c");
            // the advice ran around each call: the listeners did not call the beans around the proxies
            assertThat(ADVISED).hasValue(3);
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .containsExactlyInAnyOrder("late", "late-handlers");
        });
    }

    @Test
    void aListenerBehindALateJdkProxyOfAMethodNoInterfaceHasFailsStartUpNamingIt() {
        runner.withUserConfiguration(LateJdkProxy.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@KafkoListener 'late-jdk'")
                    .hasMessageContaining("bean 'lateJdk' is exposed as a JDK proxy");
        });
    }

    @Test
    void aJdkProxiedListenerRepliesWhereItsClassMethodsSendToSays() {
        runner.withUserConfiguration(JdkProxied.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("replying")).isNotInstanceOf(Replying.class);
            send(context, "jdk-requests", "hi");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("hi");
            assertThat(ADVISED).hasValue(1);
            List<KafkoRecord> replies = KafkoTestUtils.records(context, "jdk-replies");
            assertThat(replies).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactly("HI");
        });
    }

    @Test
    void aJdkProxiedListenerWithAHeaderOnlyItsClassDeclaresFailsStartUpNamingIt() {
        runner.withUserConfiguration(JdkProxiedHeader.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@KafkoListener 'jdk-header' on HeaderImpl.on")
                    .hasMessageContaining("called through WithTopic.on, whose parameter 1 lacks the @Payload of HeaderImpl.on");
        });
    }

    /**
     * Behind a JDK proxy made after kafko's post-processor, the failure named the class-level listener's first
     * handler ({@code one}), whatever handler lacked the annotation on the interface ({@code two}).
     */
    @Test
    void aLateJdkProxiedClassLevelListenerWithAHeaderOnlyItsClassDeclaresFailsStartUpNamingThatHandler() {
        runner.withUserConfiguration(LateJdkHandlers.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@KafkoListener 'late-jdk-handlers' on " + TwoHandlers.class.getName() + ".two:")
                    .hasMessageContaining("called through Handlers.two, whose parameter 2 lacks the @Header of"
                            + " TwoHandlers.two");
        });
    }

    @Test
    void aJdkProxiedListenerOfAMethodNoInterfaceHasFailsStartUpNamingTheBean() {
        runner.withUserConfiguration(JdkProxiedImplOnly.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@KafkoListener on ImplOnly.on of bean 'implOnly'")
                    .hasMessageContaining("not found in any interface(s) of the exposed proxy type");
        });
    }

    /** The exception that says what is wrong with the listener, in the start-up failure's causes. */
    private static InvalidKafkoListenerException invalidListener(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof InvalidKafkoListenerException)) {
            t = t.getCause();
        }
        assertThat(t).as("an InvalidKafkoListenerException among the causes of %s", failure).isNotNull();
        return (InvalidKafkoListenerException) t;
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

    private static Object proxy(Object bean, boolean targetClass) {
        ProxyFactory factory = new ProxyFactory(bean);
        factory.setProxyTargetClass(targetClass);
        if (!targetClass) {
            factory.setInterfaces(bean.getClass().getInterfaces());
        }
        factory.addAdvice((MethodInterceptor) invocation -> {
            ADVISED.incrementAndGet();
            return invocation.proceed();
        });
        return factory.getProxy();
    }

    /** A plain post-processor: it runs after the ordered ones, kafko's among them. */
    static final class LateProxying implements BeanPostProcessor {
        private final List<String> names;
        private final boolean targetClass;

        LateProxying(boolean targetClass, String... names) {
            this.names = List.of(names);
            this.targetClass = targetClass;
        }

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            return names.contains(beanName) ? proxy(bean, targetClass) : bean;
        }
    }

    /** A post-processor that runs before kafko's, as the auto-proxy creators do. */
    static final class EarlyJdkProxying implements BeanPostProcessor, PriorityOrdered {
        private final String name;

        EarlyJdkProxying(String name) {
            this.name = name;
        }

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            return beanName.equals(name) ? proxy(bean, false) : bean;
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LateProxy {
        @Bean
        static BeanPostProcessor lateProxying() {
            return new LateProxying(true, "advised", "advisedHandlers");
        }

        @Bean
        Advised advised() {
            return new Advised();
        }

        @Bean
        AdvisedHandlers advisedHandlers() {
            return new AdvisedHandlers();
        }
    }

    @KafkoListener(id = "late-handlers", topics = "late-handlers")
    static class AdvisedHandlers {
        @KafkoHandler
        public void on(String value) {
            RECEIVED.add("handler:" + value);
        }
    }

    static class Advised {
        @KafkoListener(id = "late", topics = "late")
        public void on(String value) {
            RECEIVED.add(value);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LateJdkProxy {
        @Bean
        static BeanPostProcessor lateProxying() {
            return new LateProxying(false, "lateJdk");
        }

        @Bean
        LateImplOnly lateJdk() {
            return new LateImplOnly();
        }
    }

    public interface Marker {
        void other();
    }

    static class ImplOnly implements Marker {
        @Override
        public void other() {
        }

        @KafkoListener(id = "impl-only", topics = "impl-only")
        public void on(String value) {
            RECEIVED.add(value);
        }
    }

    static class LateImplOnly implements Marker {
        @Override
        public void other() {
        }

        @KafkoListener(id = "late-jdk", topics = "impl-only")
        public void on(String value) {
            RECEIVED.add(value);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JdkProxiedImplOnly {
        @Bean
        static EarlyJdkProxying earlyJdkProxying() {
            return new EarlyJdkProxying("implOnly");
        }

        @Bean
        Marker implOnly() {
            return new ImplOnly();
        }
    }

    public interface Requests {
        String on(String value);
    }

    static class Replying implements Requests {
        @Override
        @KafkoListener(id = "jdk-replying", topics = "jdk-requests")
        @SendTo("jdk-replies")
        public String on(@Payload String value) {
            RECEIVED.add(value);
            return value.toUpperCase();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JdkProxied {
        @Bean
        static EarlyJdkProxying earlyJdkProxying() {
            return new EarlyJdkProxying("replying");
        }

        @Bean
        Requests replying() {
            return new Replying();
        }
    }

    public interface WithTopic {
        void on(String value, String topic);
    }

    static class HeaderImpl implements WithTopic {
        @Override
        @KafkoListener(id = "jdk-header", topics = "jdk-header")
        public void on(@Payload String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(value + "|" + topic);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JdkProxiedHeader {
        @Bean
        static EarlyJdkProxying earlyJdkProxying() {
            return new EarlyJdkProxying("headerImpl");
        }

        @Bean
        WithTopic headerImpl() {
            return new HeaderImpl();
        }
    }

    public interface Handlers {
        void one(String value);

        void two(Integer value, String topic);
    }

    @KafkoListener(id = "late-jdk-handlers", topics = "late-jdk-handlers")
    static class TwoHandlers implements Handlers {
        @Override
        @KafkoHandler
        public void one(String value) {
            RECEIVED.add(value);
        }

        @Override
        @KafkoHandler
        public void two(Integer value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(value + "|" + topic);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LateJdkHandlers {
        @Bean
        static BeanPostProcessor lateProxying() {
            return new LateProxying(false, "twoHandlers");
        }

        @Bean
        Handlers twoHandlers() {
            return new TwoHandlers();
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
            return new LateProxying(true, "withFinal");
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
            return new LateProxying(true, "withPrivate");
        }

        @Bean
        WithPrivate withPrivate() {
            return new WithPrivate();
        }
    }
}
