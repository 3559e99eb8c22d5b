package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * A listener refused at start-up gets the failure analysis of an invalid listener, which names it, whatever
 * check refused it (its attributes, or its method when the container is built) and whatever else lies in the
 * cause chain: this is the report Spring Boot prints, not only what one analyzer would say.
 */
@ExtendWith(OutputCaptureExtension.class)
class ListenerFailureAnalysisTest {

    @ParameterizedTest
    @ValueSource(classes = {AcknowledgmentWithoutManualAckMode.class, BatchWithoutList.class,
            BatchReadingAPerRecordHeaderAsOneValue.class, ClassLevelBatch.class, BatchSendToWithoutTopic.class,
            BatchReadingTheDeliveryAttempt.class, BatchReadingAHeaderOfItsRecords.class})
    void aListenerRefusedAtStartUpIsReportedAsAnInvalidListenerNamingIt(Class<?> listener, CapturedOutput output) {
        SpringApplication application = new SpringApplication(Base.class, listener);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        assertThatThrownBy(() -> application.run("--kafko.ephemeral=true")).isNotNull();
        assertThat(output).contains("APPLICATION FAILED TO START");
        String report = output.getOut().substring(output.getOut().lastIndexOf("APPLICATION FAILED TO START"));
        assertThat(report).contains("Description:").contains("Invalid listener: ").contains("'refused'");
    }

    @Test
    void aBatchListenerMayAskForAHeaderOfItsRecordsThatIsNotRequired() {
        SpringApplication application = new SpringApplication(Base.class, BatchReadingAHeaderOfItsRecordsIfThere.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        application.run("--kafko.ephemeral=true").close();
    }

    @Test
    void spelNamingAMissingBeanIsReportedAsAnInvalidListenerNotAsABeanSomeComponentRequired() {
        SpringApplication application = new SpringApplication(Base.class, TopicsFromAMissingBean.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        Throwable failure = catchThrowable(() -> application.run("--kafko.ephemeral=true"));
        assertThat(failure).hasRootCauseInstanceOf(NoSuchBeanDefinitionException.class);
        // every analyzer Spring Boot would load, in the order an application's class path gives them: the
        // starter's jar after Spring Boot's; the analyzers then sort by their order, as Boot sorts them
        List<FailureAnalyzer> analyzers = new ArrayList<>();
        SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                        ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                                .and(Environment.class, new StandardEnvironment()),
                        (factoryType, factoryImplementationName, f) -> { })
                .forEach(analyzers::add);
        analyzers.sort(Comparator.comparing(a -> a.getClass().getName().startsWith("dev.kafko.")));
        AnnotationAwareOrderComparator.sort(analyzers);
        FailureAnalysis reported = analyzers.stream().map(a -> a.analyze(failure)).filter(Objects::nonNull)
                .findFirst().orElseThrow();
        assertThat(reported.getDescription()).startsWith("Invalid listener: @KafkoListener 'refused'")
                .contains("topics '#{@noSuchBean.topic}' could not be resolved");
    }

    @Test
    void anUnknownAckModeIsRefusedNamingEveryAckModeThereIs() {
        SpringApplication application = new SpringApplication(Base.class, UnknownAckMode.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        assertThatThrownBy(() -> application.run("--kafko.ephemeral=true")).hasStackTraceContaining(
                "ackMode 'sometimes' is not one of record, batch, manual, manual-immediate, count, time, count-time");
    }

    @Test
    void aPartitionTheTopicDoesNotHaveIsReportedWithWhatToChangeNotTheDataDirectory(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Base.class, PartitionTheTopicDoesNotHave.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        assertThatThrownBy(() -> application.run("--kafko.ephemeral=true", "--kafko.topics.t.partitions=2")).isNotNull();
        String report = output.getOut().substring(output.getOut().lastIndexOf("APPLICATION FAILED TO START"));
        assertThat(report).contains("InvalidPartitionException: Listener 'refused' cannot start: it is assigned"
                + " partition(s) [3] of topic 't', which has 2 partition(s)");
        String action = report.substring(report.indexOf("Action:"));
        assertThat(action).doesNotContain("data directory").contains("topicPartitions", "kafko.topics.<name>.partitions");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(KafkoAutoConfiguration.class)
    static class Base {
    }

    static class AcknowledgmentWithoutManualAckMode {
        @KafkoListener(id = "refused", topics = "t")
        void on(String value, Acknowledgment ack) {
        }
    }

    static class BatchWithoutList {
        @KafkoListener(id = "refused", topics = "t", batch = "true")
        void on(String value) {
        }
    }

    static class BatchReadingAPerRecordHeaderAsOneValue {
        @KafkoListener(id = "refused", topics = "t", batch = "true")
        void on(List<String> values, @Header(KafkoHeaders.OFFSET) long offset) {
        }
    }

    @KafkoListener(id = "refused", topics = "t", batch = "true")
    static class ClassLevelBatch {
        @KafkoHandler(isDefault = true)
        void on(String value) {
        }
    }

    static class BatchSendToWithoutTopic {
        @KafkoListener(id = "refused", topics = "t", batch = "true")
        @SendTo
        List<String> on(List<String> values) {
            return values;
        }
    }

    static class BatchReadingTheDeliveryAttempt {
        @KafkoListener(id = "refused", topics = "t", batch = "true")
        void on(List<String> values, @Header(KafkoHeaders.DELIVERY_ATTEMPT) int attempt) {
        }
    }

    static class BatchReadingAHeaderOfItsRecords {
        @KafkoListener(id = "refused", topics = "t", batch = "true")
        void on(List<String> values, @Header("tenant") List<String> tenants) {
        }
    }

    static class BatchReadingAHeaderOfItsRecordsIfThere {
        @KafkoListener(id = "accepted", topics = "t", batch = "true")
        void on(List<String> values, @Header(name = "tenant", required = false) List<String> tenants,
                @Header("region") java.util.Optional<String> region, @Header(KafkoHeaders.GROUP_ID) String group) {
        }
    }

    static class TopicsFromAMissingBean {
        @KafkoListener(id = "refused", topics = "#{@noSuchBean.topic}")
        void on(String value) {
        }
    }

    static class PartitionTheTopicDoesNotHave {
        @KafkoListener(id = "refused", topicPartitions = @TopicPartition(topic = "t", partitions = "0, 3"))
        void on(String value) {
        }
    }

    static class UnknownAckMode {
        @KafkoListener(id = "refused", topics = "t", ackMode = "sometimes")
        void on(String value) {
        }
    }
}
