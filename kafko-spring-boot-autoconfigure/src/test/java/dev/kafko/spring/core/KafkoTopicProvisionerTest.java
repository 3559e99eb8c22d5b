package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.Topic;
import dev.kafko.TopicExistsException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class KafkoTopicProvisionerTest {

    @TempDir
    Path dir;

    @Test
    void aTopicCreatedByAnotherCallerBetweenTheCheckAndTheCreateIsNotLoggedAsCreatedHere(CapturedOutput output) {
        try (Kafko kafko = Kafko.open(dir)) {
            AtomicBoolean raced = new AtomicBoolean();
            // the other caller (a listener, say) creates the topic right after this one found it missing
            Kafko racing = intercepted(kafko, (method, args) -> {
                if (method.getName().equals("topic") && args[0].equals("t") && raced.compareAndSet(false, true)) {
                    kafko.createTopic("t");
                    return Optional.empty();
                }
                return null;
            });
            Topic t = new KafkoTopicProvisioner(racing, Map.of(), true).ensure("t", 1);
            assertThat(t.name()).isEqualTo("t");
            assertThat(raced).isTrue();
            assertThat(output.getOut()).doesNotContain("topic 't'");

            new KafkoTopicProvisioner(kafko, Map.of(), true).ensure("u", 1);
            assertThat(output.getOut().lines().filter(l -> l.contains("topic 'u'"))).singleElement().asString()
                    .contains("Created topic 'u'");
        }
    }

    @Test
    void aTopicCreatedByAnotherCallerAndDeletedAgainBeforeItCouldBeTakenIsCreatedAnew() {
        try (Kafko kafko = Kafko.open(dir)) {
            AtomicInteger creates = new AtomicInteger();
            // another caller creates the topic first, and deletes it before this one can take it
            Kafko racing = intercepted(kafko, (method, args) -> {
                if (method.getName().equals("createTopic") && creates.incrementAndGet() == 1) {
                    throw new TopicExistsException("topic 't' already exists");
                }
                return null;
            });
            Topic t = new KafkoTopicProvisioner(racing, Map.of(), true).ensure("t", 1);
            assertThat(t.name()).isEqualTo("t");
            assertThat(creates).hasValue(2);
            assertThat(kafko.topic("t")).isPresent();
        }
    }

    @Test
    void creationsAreLoggedAtDebugOnlyWhenAskedTo(CapturedOutput output) {
        try (Kafko kafko = Kafko.open(dir)) {
            KafkoTopicProvisioner quiet = new KafkoTopicProvisioner(kafko, Map.of(), true);
            quiet.setLogCreations(false);
            quiet.ensure("q", 1);
            assertThat(kafko.topic("q")).isPresent();
            assertThat(output.getOut()).doesNotContain("Created topic 'q'");
        }
    }

    /** {@code kafko}, where {@code interceptor} answers a call first: a null answer passes the call on. */
    private static Kafko intercepted(Kafko kafko, java.util.function.BiFunction<java.lang.reflect.Method, Object[],
            Object> interceptor) {
        return (Kafko) Proxy.newProxyInstance(Kafko.class.getClassLoader(), new Class<?>[] {Kafko.class},
                (proxy, method, args) -> {
                    Object answer = interceptor.apply(method, args);
                    if (answer != null) {
                        return answer;
                    }
                    try {
                        return method.invoke(kafko, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
