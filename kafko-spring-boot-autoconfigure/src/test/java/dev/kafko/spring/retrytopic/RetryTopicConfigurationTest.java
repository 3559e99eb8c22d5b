package dev.kafko.spring.retrytopic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.messaging.handler.annotation.Header;

/** {@link RetryTopicConfiguration} beans: retry topics for listeners without {@code @RetryableTopic}. */
@ExtendWith(OutputCaptureExtension.class)
class RetryTopicConfigurationTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();
    static final List<String> DEAD = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=1");

    /**
     * A builder that shares one retry topic among the retries of one back-off, the names these tests read (the
     * builder's default gives each retry its own, as spring-kafka's does: {@code RetryTopicNamingReviewTest}).
     */
    private static RetryTopicConfigurationBuilder builder() {
        return RetryTopicConfigurationBuilder.newInstance().useSingleTopicForSameIntervals();
    }

    @BeforeEach
    void reset() {
        CALLS.clear();
        DEAD.clear();
    }

    @Test
    void aBeanGivesTheListenersOfItsTopicsRetryTopicsAndADeadLetterHandlerOfAnotherBean() {
        runner.withPropertyValues("kafko.topics.pay.partitions=2", "kafko.topics.other.partitions=1")
                .withUserConfiguration(PayRetries.class).withBean(Listeners.class)
                .withBean("deadLetters", DeadLetters.class).run(context -> {
                    template(context).send("pay", 1, "k", "never").join();
                    template(context).send("pay", 1, "k", "invalid").join(); // not retried
                    template(context).send("other", 0, "k", "never").join(); // not a topic of the bean
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(CALLS).containsExactlyInAnyOrder("pay:never", "pay-retry:never", "pay-retry:never",
                            "pay:invalid", "other:never");
                    assertThat(DEAD).containsExactlyInAnyOrder("pay-dlt:never", "pay-dlt:invalid");
                    List<KafkoRecord> dead = KafkoTestUtils.records(context, "pay-dlt");
                    assertThat(dead).hasSize(2).allSatisfy(r -> assertThat(r.partition()).isEqualTo(1));
                    assertThat(registry(context).getListenerContainerIds())
                            .contains("pay", "pay-retry", "pay-dlt", "other")
                            .doesNotContain("other-retry", "other-dlt");
                });
    }

    @Test
    void aRetryableTopicOnTheMethodWinsAndTheFirstDeclaredBeanThatAppliesIsUsed() {
        runner.withPropertyValues("kafko.topics.pay.partitions=1", "kafko.topics.other.partitions=1",
                "kafko.topics.own.partitions=1")
                .withUserConfiguration(TwoBeans.class).withBean(Listeners.class).withBean(Own.class)
                .run(context -> {
                    assertThat(registry(context).getListenerContainerIds())
                            .contains("pay", "pay-again", "pay-gone", "other", "other-again", "other-gone",
                                    "own", "own-retry", "own-dlt")
                            .doesNotContain("pay-retry", "pay-dlt", "own-again");
                    template(context).send("own", 0, "k", "never").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(CALLS).containsExactly("own:never", "own-retry:never");
                });
    }

    @Test
    void aPrototypeBeanIsNotOneThatApplies() {
        // only singletons count, as in spring-kafka's lookup of the beans
        runner.withPropertyValues("kafko.topics.pay.partitions=1", "kafko.topics.other.partitions=1")
                .withUserConfiguration(PrototypeRetries.class).withBean(Listeners.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(registry(context).getListenerContainerIds()).contains("pay", "other")
                            .doesNotContain("pay-retry", "pay-dlt");
                });
    }

    @Test
    void anExcludedTopicKeepsItsListenerAsItIs() {
        runner.withPropertyValues("kafko.topics.pay.partitions=1", "kafko.topics.other.partitions=1")
                .withUserConfiguration(AllButOther.class).withBean(Listeners.class).run(context ->
                        assertThat(registry(context).getListenerContainerIds()).contains("pay", "pay-retry", "pay-dlt",
                                "other").doesNotContain("other-retry"));
    }

    @Test
    void aListenerThatCannotTakeRetryTopicsIsWarnedOfUnderABeanForEveryTopicAndFailsTheStartUnderOneNamingIt(
            CapturedOutput output) {
        runner.withPropertyValues("kafko.topics.batch.partitions=1").withUserConfiguration(Everything.class)
                .withBean(Batch.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(registry(context).getListenerContainerIds()).contains("batch")
                            .doesNotContain("batch-retry");
                });
        assertThat(output).contains("The RetryTopicConfiguration bean 'everything' applies to every topic, but listener"
                + " 'batch' on " + Batch.class.getName() + ".on cannot take retry topics");
        runner.withPropertyValues("kafko.topics.batch.partitions=1").withUserConfiguration(NamesBatch.class)
                .withBean(Batch.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("listener 'batch' on " + Batch.class.getName() + ".on (given retry"
                                + " topics by the RetryTopicConfiguration bean 'namesBatch') is a batch listener"));
    }

    @Test
    void aListenerOfTwoTopicsIsLeftAloneByABeanNamingOneOfThemAsInSpringKafkaAndGetsRetryTopicsUnderOneNamingBoth() {
        runner.withPropertyValues("kafko.topics.batch.partitions=1", "kafko.topics.two.partitions=1")
                .withUserConfiguration(NamesBatch.class).withBean(TwoTopics.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(registry(context).getListenerContainerIds()).contains("two")
                            .doesNotContain("batch-retry", "two-retry");
                });
        runner.withPropertyValues("kafko.topics.batch.partitions=1", "kafko.topics.two.partitions=1")
                .withUserConfiguration(NamesBatchAndTwo.class).withBean(TwoTopics.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(registry(context).getListenerContainerIds()).contains("two", "two-retry", "two-dlt");
                    assertThat(registry(context).getListenerContainer("two-retry").getTopics())
                            .containsExactly("batch-retry", "two-retry");
                    assertThat(registry(context).getListenerContainer("two-dlt").getTopics())
                            .containsExactly("batch-dlt", "two-dlt");
                });
    }

    @Test
    void aPatternListenerIsWarnedOfUnderABeanForEveryTopicAndLeftAloneByOneNamingTopics(CapturedOutput output) {
        runner.withPropertyValues("kafko.topics.batch.partitions=1").withUserConfiguration(Everything.class)
                .withBean(Pattern.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(registry(context).getListenerContainerIds()).contains("pattern")
                            .doesNotContain("pattern-retry", "pattern-dlt");
                });
        assertThat(output).contains("The RetryTopicConfiguration bean 'everything' applies to every topic, but listener"
                + " 'pattern' on " + Pattern.class.getName() + ".on cannot take retry topics");
        runner.withPropertyValues("kafko.topics.batch.partitions=1").withUserConfiguration(NamesBatch.class)
                .withBean(Pattern.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("The RetryTopicConfiguration bean 'namesBatch' applies");
    }

    @Test
    void aDeadLetterHandlerOfTheListenersOwnBeanIsCalledOnThatBean() {
        runner.withPropertyValues("kafko.topics.self.partitions=1").withUserConfiguration(SelfRetries.class)
                .withBean("selfHandled", SelfHandled.class).run(context -> {
                    template(context).send("self", 0, "k", "never").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(DEAD).containsExactly("self-dlt:never:" + context.getBean(SelfHandled.class).name);
                });
    }

    @Test
    void aDeadLetterHandlerThatCannotBeFoundFailsTheStartNamingIt() {
        runner.withPropertyValues("kafko.topics.pay.partitions=1").withUserConfiguration(MissingMethod.class)
                .withBean(Listeners.class).withBean("deadLetters", DeadLetters.class).run(context -> assertThat(context)
                        .getFailure().hasStackTraceContaining("(given retry topics by the RetryTopicConfiguration bean"
                                + " 'missingMethod') whose dead-letter handler " + DeadLetters.class.getName()
                                + ".nothing (bean 'deadLetters') does not exist"));
        runner.withPropertyValues("kafko.topics.pay.partitions=1").withUserConfiguration(MissingBean.class)
                .withBean(Listeners.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("whose dead-letter handler bean 'nobody' cannot be had"));
    }

    @Test
    void aDeadLetterHandlerThatOverridesItsSuperclassesMethodIsNoOverload() {
        runner.withPropertyValues("kafko.topics.pay.partitions=1").withUserConfiguration(OverriddenHandler.class)
                .withBean(Listeners.class).withBean("deadLetters", OverridingDeadLetters.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    template(context).send("pay", 0, "k", "invalid").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(DEAD).containsExactly("override:pay-dlt:invalid");
                });
    }

    @Test
    void aBeanDeclaredOnAListenersOwnClassGivesEveryListenerItNamesRetryTopics() {
        // the bean's @Bean method is on a listener's class, still being made when a listener is first read: read
        // then, it was left out (Spring's getBeansOfType skips a bean in creation) for that listener, or for all
        for (boolean circular : new boolean[] {false, true}) {
            runner.withAllowCircularReferences(circular)
                    .withPropertyValues("kafko.topics.inline.partitions=1", "kafko.topics.pay.partitions=1",
                            "kafko.topics.other.partitions=1")
                    .withUserConfiguration(ListenerWithItsRetries.class).withBean(Listeners.class).run(context ->
                            assertThat(registry(context).getListenerContainerIds())
                                    .contains("inline", "inline-retry", "inline-dlt", "pay", "pay-retry", "pay-dlt"));
        }
    }

    @Test
    void aDeadLetterHandlerBeanThatNeedsTheListenersBeanIsNoCycle() {
        runner.withAllowCircularReferences(false).withPropertyValues("kafko.topics.pay.partitions=1",
                        "kafko.topics.other.partitions=1")
                .withUserConfiguration(PayRetries.class).withBean(Listeners.class)
                .withBean("deadLetters", NeedsTheListeners.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    template(context).send("pay", 0, "k", "invalid").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(DEAD).containsExactly("pay-dlt:invalid");
                });
    }

    @Test
    void aClassLevelListenerFailsTheStartUnderABeanNamingItsTopicAndIsWarnedOfUnderOneForEveryTopic(
            CapturedOutput output) {
        runner.withPropertyValues("kafko.topics.cls.partitions=1").withUserConfiguration(NamesCls.class)
                .withBean(ClassLevel.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("listener 'cls' on " + ClassLevel.class.getName())
                        .hasStackTraceContaining("(given retry topics by the RetryTopicConfiguration bean 'namesCls')"
                                + " is a class-level listener"));
        runner.withPropertyValues("kafko.topics.cls.partitions=1").withUserConfiguration(Everything.class)
                .withBean(ClassLevel.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(registry(context).getListenerContainerIds()).contains("cls")
                            .doesNotContain("cls-retry");
                });
        assertThat(output).contains("The RetryTopicConfiguration bean 'everything' applies to every topic, but listener"
                + " 'cls' on " + ClassLevel.class.getName() + " cannot take retry topics");
    }

    @Test
    void recordsLeftInARetryTopicTheBeanNoLongerReadsAreNamedAtTheStart(@TempDir Path dir, CapturedOutput output) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.pay.partitions=1",
                        "kafko.topics.other.partitions=1", "kafko.topics.pay-again-0.partitions=1");
        // what a multiplied back-off's first retry topic was left holding
        onDisk.run(context -> template(context).send("pay-again-0", 0, "k", "waiting").join());
        // the bean's fixed back-off reads pay-again, named after its own retry suffix, not the annotation's
        onDisk.withUserConfiguration(PayAgain.class).withBean(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(registry(context).getListenerContainerIds()).contains("pay", "pay-again", "pay-dlt");
        });
        assertThat(output).contains("listener 'pay' of topic 'pay' reads the retry topics [pay-again], not"
                + " 'pay-again-0' (1), which hold 1 record(s)");
    }

    @Test
    void theBuilderCarriesItsOtherSettingsIntoThePlan() {
        RetryTopicConfiguration config = builder().fixedBackOff(Duration.ofMillis(40))
                .maxAttempts(3).retryOn(List.of(IllegalStateException.class)).retryTopicSuffix("-again")
                .dltProcessingFailureStrategy(DltStrategy.ALWAYS_RETRY_ON_ERROR).autoCreateTopicsWith(4)
                .concurrency(1).excludeTopics(List.of("x", "y")).create();
        RetryTopics plan = config.plan("a");
        assertThat(config.retryTopicSuffix()).isEqualTo("-again");
        assertThat(plan.retryTopics()).containsExactly("a-again");
        assertThat(plan.backOffBefore(3)).isEqualTo(40);
        assertThat(plan.dltBackOff()).isEqualTo(40);
        assertThat(plan.autoCreateTopics()).isTrue();
        assertThat(plan.numPartitions()).isEqualTo(4);
        assertThat(plan.retryable(new IllegalStateException())).isTrue();
        assertThat(plan.retryable(new RuntimeException(new IllegalStateException()))).isFalse();
        assertThat(config.concurrency()).isEqualTo(1);
        assertThat(config.appliesTo("x")).isFalse();
        assertThat(config.appliesTo("y")).isFalse();
        assertThat(config).hasToString("RetryTopicConfiguration[attempts=3, topics=all except [x, y]]");
        assertThat(builder().includeTopic("p").create())
                .hasToString("RetryTopicConfiguration[attempts=3, topics=[p]]");
        RetryTopics none = builder().noBackoff().doNotConfigureDlt().create()
                .plan("n");
        assertThat(none.backOffBefore(2)).isZero();
        assertThat(none.dltTopics()).isEmpty();
        assertThat(none.isDltTopic("n-dlt")).isFalse();
        // the back-off's edges: a multiplier of 1 is a fixed back-off; an unbounded multiplied one stops at its last
        // retry; a maximum of 0 is none (spring-kafka refuses it)
        RetryTopics one = builder().exponentialBackoff(10, 1, 50).create().plan("t");
        assertThat(one.retryTopics()).containsExactly("t-retry");
        assertThat(one.backOffBefore(3)).isEqualTo(10);
        RetryTopics grown = builder().exponentialBackoff(10, 2, 1_000).create()
                .plan("t");
        assertThat(grown.retryTopics()).containsExactly("t-retry-10", "t-retry-20");
        assertThat(grown.dltBackOff()).isEqualTo(20);
        RetryTopics uncapped = builder().exponentialBackoff(20_000, 2, 0).create()
                .plan("t");
        assertThat(uncapped.backOffBefore(3)).isEqualTo(40_000);
        // a builder goes on after create(): what it made does not change
        RetryTopicConfigurationBuilder reused = builder().includeTopic("p");
        RetryTopicConfiguration first = reused.create();
        reused.includeTopic("q").dltRoutingRules(Map.of("-v", Set.of(IllegalArgumentException.class)));
        assertThat(first.appliesTo("q")).isFalse();
        assertThat(first.plan("p").dltTopics()).containsExactly("p-dlt");
        RetryTopics routed = reused.create().plan("p");
        assertThat(routed.dltTopics()).containsExactly("p-dlt", "p-v-dlt");
        // routed by a cause too, as spring-kafka routes, though traversingCauses is false
        assertThat(routed.traversingCauses()).isFalse();
        assertThat(routed.dltTopicFor(new IllegalStateException(new IllegalArgumentException()))).isEqualTo("p-v-dlt");
        assertThat(routed.dltTopicFor(new IllegalStateException())).isEqualTo("p-dlt");
    }

    @Test
    void aLaterBackOffOrTopicCreationSettingReplacesAnEarlierOne() {
        // a fixed back-off after a multiplied one is fixed: one retry topic, the same back-off before each retry
        RetryTopics fixed = builder().exponentialBackoff(10, 2, 1_000)
                .fixedBackOff(40).maxAttempts(4).create().plan("t");
        assertThat(fixed.retryTopics()).containsExactly("t-retry");
        assertThat(fixed.backOffBefore(4)).isEqualTo(40);
        RetryTopics none = builder().exponentialBackoff(10, 2, 1_000)
                .noBackoff().maxAttempts(3).create().plan("t");
        assertThat(none.retryTopics()).containsExactly("t-retry");
        assertThat(none.backOffBefore(3)).isZero();
        // autoCreateTopicsWith after doNotAutoCreateRetryTopics creates them again, as spring-kafka's does
        RetryTopics created = builder().doNotAutoCreateRetryTopics()
                .autoCreateTopicsWith(2).create().plan("t");
        assertThat(created.autoCreateTopics()).isTrue();
        assertThat(created.numPartitions()).isEqualTo(2);
        // doNotRetryOnDltFailure after another strategy is FAIL_ON_ERROR
        assertThat(builder().dltProcessingFailureStrategy(
                DltStrategy.ALWAYS_RETRY_ON_ERROR).doNotRetryOnDltFailure().create().plan("t").dltStrategy())
                .isEqualTo(DltStrategy.FAIL_ON_ERROR);
    }

    @Test
    void theBuilderRefusesSettingsThatCannotWorkWhenItCreates() {
        assertThatIllegalArgumentException().isThrownBy(() -> builder()
                .maxAttempts(0).create()).withMessage("attempts must be at least 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> builder()
                .concurrency(0).create()).withMessage("concurrency must be at least 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> builder()
                .retryTopicSuffix("-x").dltSuffix("-x").create()).withMessageContaining("two different");
        assertThatIllegalArgumentException().isThrownBy(() -> builder()
                .doNotConfigureDlt().dltRoutingRules(Map.of("-v", Set.of(IllegalStateException.class))).create())
                .withMessageContaining("the dltStrategy is NO_DLT");
        assertThatIllegalArgumentException().isThrownBy(() -> builder()
                .timeoutAfter(-1).create()).withMessage("the timeout must not be negative, was -1");
        assertThatIllegalArgumentException().isThrownBy(() -> builder()
                .autoCreateTopicsWith(-2).create()).withMessage("numPartitions must not be negative, was -2");
    }

    @Test
    void theBuilderCarriesEverySettingIntoThePlan() {
        RetryTopicConfiguration config = builder()
                .exponentialBackoff(100, 2, 300).maxAttempts(5).retryOn(IllegalStateException.class)
                .notRetryOn(List.of(UnsupportedOperationException.class)).traversingCauses()
                .retryTopicSuffix("-again").dltSuffix("-gone").dltProcessingFailureStrategy(
                        DltStrategy.ALWAYS_RETRY_ON_ERROR).timeoutAfter(Duration.ofSeconds(7))
                .doNotAutoCreateRetryTopics().concurrency(3).autoStartDltHandler(false)
                .dltRoutingRules(Map.of("-v", Set.of(IllegalArgumentException.class)))
                .includeTopics(List.of("a", "b")).excludeTopic("b").create();
        RetryTopics plan = config.plan("a");
        assertThat(plan.retryTopics()).containsExactly("a-again-100", "a-again-200", "a-again-300");
        assertThat(plan.backOffBefore(2)).isEqualTo(100);
        assertThat(plan.backOffBefore(5)).isEqualTo(300);
        assertThat(plan.dltTopics()).containsExactly("a-gone", "a-v-gone");
        assertThat(plan.dltTopicFor(new IllegalArgumentException())).isEqualTo("a-v-gone");
        assertThat(plan.dltStrategy()).isEqualTo(DltStrategy.ALWAYS_RETRY_ON_ERROR);
        assertThat(plan.timeout()).isEqualTo(7_000);
        assertThat(plan.autoCreateTopics()).isFalse();
        assertThat(plan.traversingCauses()).isTrue();
        assertThat(plan.retryable(new RuntimeException(new IllegalStateException()))).isTrue();
        assertThat(plan.retryable(new IllegalStateException(new UnsupportedOperationException()))).isFalse();
        assertThat(config.concurrency()).isEqualTo(3);
        assertThat(config.autoStartDltHandler()).isFalse();
        assertThat(config.appliesTo("a")).isTrue();
        assertThat(config.appliesTo("b")).isFalse();
        assertThat(config.appliesTo("c")).isFalse();
        assertThat(config.namesTopics()).isTrue();
        RetryTopicConfiguration defaults = RetryTopicConfigurationBuilder.newInstance().create();
        assertThat(defaults.appliesTo("anything")).isTrue();
        assertThat(defaults.namesTopics()).isFalse();
        // spring-kafka's builder: a retry topic per retry
        assertThat(defaults.plan("t").retryTopics()).containsExactly("t-retry-0", "t-retry-1");
        assertThat(defaults.plan("t").backOffBefore(3)).isEqualTo(1_000);
        assertThat(defaults.plan("t").traversingCauses()).isFalse();
        assertThat(defaults.plan("t").dltStrategy()).isEqualTo(DltStrategy.FAIL_ON_ERROR);
        assertThat(defaults.plan("t").autoCreateTopics()).isTrue();
    }

    @Test
    void aBeansConcurrencyAndAutoStartDltHandlerApplyToItsContainersAndTheListenersOnesOtherwise() {
        runner.withPropertyValues("kafko.topics.tuned.partitions=4", "kafko.topics.plain.partitions=4")
                .withUserConfiguration(TunedAndPlain.class).withBean(TunedListeners.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoListenerEndpointRegistry registry = registry(context);
                    // the bean's concurrency and autoStartDltHandler, not the listener's
                    assertThat(container(registry, "tuned").getMembers()).hasSize(1);
                    assertThat(container(registry, "tuned-retry").getMembers()).hasSize(3);
                    assertThat(container(registry, "tuned-dlt").getMembers()).hasSize(3);
                    assertThat(container(registry, "tuned").isRunning()).isTrue();
                    assertThat(container(registry, "tuned-retry").isRunning()).isTrue();
                    assertThat(container(registry, "tuned-dlt").isRunning()).as("held back by the bean").isFalse();
                    // a bean without them: the listener's concurrency and autoStartup
                    assertThat(container(registry, "plain-retry").getMembers()).hasSize(2);
                    assertThat(container(registry, "plain-dlt").getMembers()).hasSize(2);
                    assertThat(container(registry, "plain").isRunning()).isFalse();
                    assertThat(container(registry, "plain-dlt").isRunning()).as("held back with the listener")
                            .isFalse();
                });
    }

    private static KafkoListenerEndpointRegistry registry(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    private static ConcurrentMessageListenerContainer container(KafkoListenerEndpointRegistry registry, String id) {
        return (ConcurrentMessageListenerContainer) registry.getListenerContainer(id);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<String, String> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class PayRetries {
        @Bean
        RetryTopicConfiguration payRetries() {
            return builder().fixedBackOff(10).maxAttempts(3)
                    .notRetryOn(IllegalArgumentException.class).includeTopic("pay")
                    .dltHandlerMethod("deadLetters", "handle").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoBeans {
        @Bean
        RetryTopicConfiguration first() {
            return builder().noBackoff().maxAttempts(2).retryTopicSuffix("-again")
                    .dltSuffix("-gone").create();
        }

        @Bean
        RetryTopicConfiguration second() {
            return builder().includeTopic("pay").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrototypeRetries {
        @Bean
        @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
        RetryTopicConfiguration prototypeRetries() {
            return builder().includeTopic("pay").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AllButOther {
        @Bean
        RetryTopicConfiguration allButOther() {
            return builder().excludeTopic("other").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Everything {
        @Bean
        RetryTopicConfiguration everything() {
            return builder().create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NamesBatch {
        @Bean
        RetryTopicConfiguration namesBatch() {
            return builder().includeTopic("batch").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NamesBatchAndTwo {
        @Bean
        RetryTopicConfiguration namesBatchAndTwo() {
            return builder().includeTopics(List.of("batch", "two")).create();
        }
    }

    static class TwoTopics {
        @KafkoListener(id = "two", topics = {"batch", "two"})
        void on(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MissingMethod {
        @Bean
        RetryTopicConfiguration missingMethod() {
            return builder().dltHandlerMethod("deadLetters", "nothing").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MissingBean {
        @Bean
        RetryTopicConfiguration missingBean() {
            return builder().dltHandlerMethod("nobody", "handle").create();
        }
    }

    static class Listeners {
        @KafkoListener(id = "pay", topics = "pay")
        void pay(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw value.equals("invalid") ? new IllegalArgumentException(value) : new IllegalStateException(value);
        }

        @KafkoListener(id = "other", topics = "other")
        void other(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException(value);
        }
    }

    static class Own {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "own", topics = "own")
        void own(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException(value);
        }
    }

    static class Batch {
        @KafkoListener(id = "batch", topics = "batch", batch = "true")
        void on(List<String> values) {
        }
    }

    static class Pattern {
        @KafkoListener(id = "pattern", topicPattern = "bat.*")
        void on(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SelfRetries {
        @Bean
        RetryTopicConfiguration selfRetries() {
            return builder().maxAttempts(1).includeTopic("self")
                    .dltHandlerMethod("selfHandled", "dead").create();
        }
    }

    static class SelfHandled {
        final String name = "instance-" + System.identityHashCode(this);

        @KafkoListener(id = "self", topics = "self")
        void on(String value) {
            throw new IllegalStateException(value);
        }

        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            DEAD.add(topic + ":" + value + ":" + name);
        }
    }

    static class DeadLetters {
        void handle(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            DEAD.add(topic + ":" + value);
        }
    }
    @Configuration(proxyBeanMethods = false)
    static class OverriddenHandler {
        @Bean
        RetryTopicConfiguration overriddenHandler() {
            return builder().notRetryOn(IllegalArgumentException.class)
                    .includeTopic("pay").dltHandlerMethod("deadLetters", "handle").create();
        }
    }

    static class OverridingDeadLetters extends DeadLetters {
        @Override
        void handle(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            DEAD.add("override:" + topic + ":" + value);
        }
    }

    /** A listener on the class that declares the bean giving it retries, as an application class often is. */
    @Configuration(proxyBeanMethods = false)
    static class ListenerWithItsRetries {
        @Bean
        RetryTopicConfiguration inlineRetries() {
            return builder().noBackoff().includeTopics(List.of("inline", "pay"))
                    .create();
        }

        @KafkoListener(id = "inline", topics = "inline")
        void on(String value) {
            throw new IllegalStateException(value);
        }
    }
    @Configuration(proxyBeanMethods = false)
    static class NamesCls {
        @Bean
        RetryTopicConfiguration namesCls() {
            return builder().includeTopic("cls").create();
        }
    }

    @KafkoListener(id = "cls", topics = "cls")
    static class ClassLevel {
        @KafkoHandler
        void on(String value) {
        }
    }
    @Configuration(proxyBeanMethods = false)
    static class PayAgain {
        @Bean
        RetryTopicConfiguration payAgain() {
            return builder().fixedBackOff(10).retryTopicSuffix("-again")
                    .includeTopic("pay").create();
        }
    }
    static class NeedsTheListeners extends DeadLetters {
        final Listeners listeners;

        NeedsTheListeners(Listeners listeners) {
            this.listeners = listeners;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TunedAndPlain {
        @Bean
        RetryTopicConfiguration tunedRetries() {
            return builder().noBackoff().concurrency(3).autoStartDltHandler(false)
                    .includeTopic("tuned").create();
        }

        @Bean
        RetryTopicConfiguration plainRetries() {
            return builder().noBackoff().includeTopic("plain").create();
        }
    }

    static class TunedListeners {
        @KafkoListener(id = "tuned", topics = "tuned")
        void tuned(String value) {
        }

        @KafkoListener(id = "plain", topics = "plain", concurrency = "2", autoStartup = "false")
        void plain(String value) {
        }
    }
}
