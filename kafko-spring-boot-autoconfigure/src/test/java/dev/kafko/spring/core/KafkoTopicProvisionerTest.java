package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.Topic;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
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
            Kafko racing = (Kafko) Proxy.newProxyInstance(Kafko.class.getClassLoader(), new Class<?>[] {Kafko.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("topic") && args[0].equals("t") && raced.compareAndSet(false, true)) {
                            kafko.createTopic("t");
                            return Optional.empty();
                        }
                        try {
                            return method.invoke(kafko, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
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
}
