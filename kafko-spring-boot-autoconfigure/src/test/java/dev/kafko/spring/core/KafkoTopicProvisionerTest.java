package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.Kafko;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

    @Test
    void aDeclaredTopicThatAnotherCallerCreatedWithTheDefaultsMeanwhileIsGrownToTheCountAskedFor(CapturedOutput output) {
        try (Kafko kafko = Kafko.open(dir)) {
            AtomicBoolean raced = new AtomicBoolean();
            // a send (or a listener's start) creates the topic with kafko.defaults right after this call found it
            // missing: the create here finds it existing
            Kafko racing = intercepted(kafko, (method, args) -> {
                if (method.getName().equals("createTopic") && args[0].equals("tenants")
                        && raced.compareAndSet(false, true)) {
                    kafko.createTopic("tenants", TopicConfig.builder().partitions(1).build());
                }
                return null;
            });
            KafkoTopicProvisioner provisioner = new KafkoTopicProvisioner(racing, Map.of(), true);
            provisioner.createOrGrow(Map.of("tenants", TopicConfig.builder().partitions(6)
                    .compression(Compression.LZ4).build()), Set.of(), Map.of("tenants", "NewTopic 'tenants'"));
            assertThat(raced).isTrue();
            assertThat(kafko.topic("tenants").orElseThrow().partitionCount()).as("the count asked for").isEqualTo(6);
            assertThat(output.getOut()).contains("Growing topic 'tenants' from 1 to 6 partitions")
                    .contains("Topic 'tenants' exists with").contains("NewTopic 'tenants' asks for");
        }
    }

    @Test
    void aTopicGrownFurtherByAnotherCallerBetweenTheCountAndTheGrowthIsTakenAsItIs() {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("orders.DLT", TopicConfig.builder().partitions(1).build());
            AtomicInteger grown = new AtomicInteger();
            // each growth here finds the topic grown past its count by another caller first (a dead-letter topic
            // grown to its topic's count on a listener's thread, an administrator's call)
            Kafko racing = intercepted(kafko, (method, args) -> {
                if (method.getName().equals("topic") && args[0].equals("orders.DLT")) {
                    Topic real = kafko.topic("orders.DLT").orElseThrow();
                    return Optional.of(growingFirst(real, kafko, grown));
                }
                return null;
            });
            KafkoTopicProvisioner provisioner = new KafkoTopicProvisioner(racing, Map.of(), true);
            provisioner.createOrGrow(Map.of("orders.DLT", TopicConfig.builder().partitions(3).build()), Set.of(),
                    Map.of("orders.DLT", "NewTopic 'orders.DLT'"));
            assertThat(kafko.topic("orders.DLT").orElseThrow().partitionCount()).isEqualTo(5);

            Topic ensured = provisioner.ensure("orders.DLT", 7);
            assertThat(ensured.partitionCount()).isEqualTo(9);
            assertThat(grown).hasValue(2);
        }
    }

    @Test
    void aTopicCreatedAndDeletedAgainByOthersAtEveryTryIsGivenUpAfterTenTries() {
        try (Kafko kafko = Kafko.open(dir)) {
            AtomicInteger creates = new AtomicInteger();
            // each create finds the topic existing, and each look-up finds it gone again (a deletion in flight)
            Kafko racing = intercepted(kafko, (method, args) -> {
                if (method.getName().equals("createTopic")) {
                    if (creates.incrementAndGet() > 100) {
                        throw new IllegalStateException("never gave up");
                    }
                    throw new TopicExistsException("topic 't' already exists");
                }
                if (method.getName().equals("topic")) {
                    return Optional.empty();
                }
                return null;
            });
            KafkoTopicProvisioner provisioner = new KafkoTopicProvisioner(racing, Map.of(), true);
            assertThatThrownBy(() -> provisioner.ensure("t", 1)).isInstanceOf(TopicExistsException.class)
                    .hasMessage("topic 't' already exists");
            assertThat(creates).hasValue(10);
            assertThat(kafko.topic("t")).isEmpty();
        }
    }

    @Test
    void thePropertiesOfATopicAreNamedByItsCanonicalKey() {
        assertThat(KafkoTopicProvisioner.propertyPrefix("az-09")).isEqualTo("kafko.topics.az-09");
        assertThat(KafkoTopicProvisioner.propertyPrefix("orders.DLT")).isEqualTo("kafko.topics[orders.DLT]");
        assertThat(KafkoTopicProvisioner.propertyPrefix("Orders")).isEqualTo("kafko.topics[Orders]");
        assertThat(KafkoTopicProvisioner.propertyPrefix("a_b")).isEqualTo("kafko.topics[a_b]");
        // the characters just outside each range: '`' and '{' around the letters, '/' and ':' around the digits
        for (String outside : new String[] {"a`", "a{", "a/", "a:"}) {
            assertThat(KafkoTopicProvisioner.propertyPrefix(outside)).isEqualTo("kafko.topics[" + outside + "]");
        }
    }

    /**
     * {@code real}, whose {@link Topic#increasePartitions} grows the topic by two past the count asked for first, as
     * another caller would between this caller's look at its count and its growth.
     */
    private static Topic growingFirst(Topic real, Kafko kafko, AtomicInteger grown) {
        return (Topic) Proxy.newProxyInstance(Topic.class.getClassLoader(), new Class<?>[] {Topic.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("increasePartitions")) {
                        grown.incrementAndGet();
                        kafko.topic(real.name()).orElseThrow().increasePartitions((Integer) args[0] + 2);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
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
