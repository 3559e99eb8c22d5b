package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link KafkoTopicProvisioner#createOrGrow} with {@code modify}: an existing topic's config changed beside others. */
class KafkoTopicProvisionerModifyTest {

    @TempDir
    Path dir;

    @Test
    void aTopicGrownByAnotherCallerBeforeItsChangeIsChangedAtItsNewCount() {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("orders.DLT", TopicConfig.builder().partitions(1).build());
            AtomicBoolean grown = new AtomicBoolean();
            // another caller (a dead-letter topic grown to its topic's count on a listener's thread, an administrator)
            // grows the topic between this caller's look at its count and its change
            Kafko racing = (Kafko) Proxy.newProxyInstance(Kafko.class.getClassLoader(), new Class<?>[] {Kafko.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("topic") && args[0].equals("orders.DLT")) {
                            return Optional.of(growingBeforeItsChange(kafko.topic("orders.DLT").orElseThrow(), grown));
                        }
                        return invoke(kafko, method, args);
                    });
            KafkoTopicProvisioner provisioner = new KafkoTopicProvisioner(racing, Map.of(), true);

            provisioner.createOrGrow(Map.of("orders.DLT", TopicConfig.builder().partitions(1)
                    .retention(Duration.ofHours(1)).build()), Set.of(), Map.of("orders.DLT", "NewTopic 'orders.DLT'"),
                    true, Map.of());

            assertThat(grown).isTrue();
            Topic topic = kafko.topic("orders.DLT").orElseThrow();
            assertThat(topic.partitionCount()).isEqualTo(3);
            assertThat(topic.config().retention()).isEqualTo(Duration.ofHours(1));
        }
    }

    /** {@code real}, grown by two partitions at its first {@link Topic#alterConfig}, before the change is made. */
    private static Topic growingBeforeItsChange(Topic real, AtomicBoolean grown) {
        return (Topic) Proxy.newProxyInstance(Topic.class.getClassLoader(), new Class<?>[] {Topic.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("alterConfig") && grown.compareAndSet(false, true)) {
                        real.increasePartitions(real.partitionCount() + 2);
                    }
                    return invoke(real, method, args);
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
