package dev.kafko.spring.annotation;

import java.util.List;
import java.util.Set;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Which beans the listener post-processor searches for {@code @KafkoListener} methods: not the framework's, nor
 * kafko's own, whose method-by-method search costs a start-up its main thread's time.
 */
final class ListenerSearch {

    /** The packages of libraries whose beans a Boot context holds and which know nothing of kafko. */
    private static final List<String> LIBRARY_PACKAGES = List.of("org.springframework.", "tools.jackson.",
            "com.fasterxml.jackson.", "io.micrometer.");
    /**
     * The exact classes of the beans kafko's auto-configurations make, none of which declares a listener:
     * searching them method by method cost a start-up some 5-25 ms of its main thread (their signatures'
     * classes loaded and every method's annotations merged). Exact classes only: an application's subclass of
     * one is searched. Kept complete by {@code OwnBeanClassesTest}.
     */
    static final Set<String> OWN_BEAN_CLASSES = Set.of(
            "dev.kafko.internal.broker.Broker",
            "dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor",
            "dev.kafko.spring.autoconfigure.KafkoAutoConfiguration",
            "dev.kafko.spring.autoconfigure.KafkoAutoConfiguration$EnableKafkoConfiguration",
            "dev.kafko.spring.autoconfigure.ListenerBeansExcludeFilter",
            "dev.kafko.spring.autoconfigure.EmptyValueBindHandlerAdvisor",
            "dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration",
            "dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration",
            "dev.kafko.spring.autoconfigure.KafkoProperties",
            "dev.kafko.spring.autoconfigure.KafkoDataDirectory",
            "dev.kafko.spring.autoconfigure.LateTopicDeclarations",
            "dev.kafko.spring.config.KafkoListenerEndpointRegistry",
            "dev.kafko.spring.config.KafkoListenerContainerFactory",
            "dev.kafko.spring.core.KafkoTopicCreations",
            "dev.kafko.spring.core.KafkoTopicProvisioner",
            "dev.kafko.spring.core.KafkoAdmin",
            "dev.kafko.spring.core.KafkoBackend",
            "dev.kafko.spring.core.KafkoTemplate",
            "dev.kafko.spring.support.RecordMessageConverter",
            "dev.kafko.spring.support.LoggingProducerListener",
            "dev.kafko.spring.listener.DefaultErrorHandler",
            "dev.kafko.spring.listener.adapter.KafkoArgumentResolvers$FailureMarkingFactory",
            "dev.kafko.spring.metrics.KafkoMetrics",
            "dev.kafko.spring.health.KafkoHealthIndicator");

    private ListenerSearch() {
    }

    /**
     * False for classes that cannot declare {@code @KafkoListener} methods, so that the framework's
     * own beans (most of a Boot context) are not searched method by method: the JDK's, Spring's,
     * Jackson's and Micrometer's classes know nothing of kafko. A subclass in an application package is
     * still searched, and finds the listener methods it inherits. kafko's own beans are told by their exact
     * classes ({@link #OWN_BEAN_CLASSES}, and the lambdas defined in them), not by their package or jar: the
     * application's classes may share both (a shaded jar holding an application beside kafko, kafko's tests).
     */
    static boolean mayHaveListeners(Class<?> type) {
        String name = type.getName();
        if (OWN_BEAN_CLASSES.contains(type.isHidden() ? lambdaHost(name) : name)) {
            return false;
        }
        for (String library : LIBRARY_PACKAGES) {
            if (name.startsWith(library)) {
                return false;
            }
        }
        return AnnotationUtils.isCandidateClass(type, List.of(KafkoListener.class, KafkoListeners.class,
                KafkoHandler.class));
    }

    /** The class a hidden class (a lambda's) was defined in: {@code Host$$Lambda/0x...} names {@code Host}. */
    private static String lambdaHost(String hiddenName) {
        int cut = hiddenName.indexOf("$$");
        return cut < 0 ? hiddenName : hiddenName.substring(0, cut);
    }
}
