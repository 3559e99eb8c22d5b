package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import tools.jackson.databind.json.JsonMapper;

/** Which beans the post-processor searches for {@code @KafkoListener} methods. */
class ListenerSearchTest {

    @Test
    void jdkAndSpringClassesAreSkippedApplicationClassesAndTheirSubclassesAreSearched() {
        assertThat(ListenerSearch.mayHaveListeners(String.class)).isFalse();
        assertThat(ListenerSearch.mayHaveListeners(SimpleAsyncTaskExecutor.class)).isFalse();
        assertThat(ListenerSearch.mayHaveListeners(Listening.class)).isTrue();
        assertThat(ListenerSearch.mayHaveListeners(ApplicationExecutor.class)).isTrue();
    }

    @Test
    void jacksonAndMicrometerClassesAreSkipped() {
        assertThat(ListenerSearch.mayHaveListeners(JsonMapper.class)).isFalse();
        assertThat(ListenerSearch.mayHaveListeners(SimpleMeterRegistry.class)).isFalse();
    }

    static final class Listening {
        @KafkoListener(topics = "t")
        void on(String value) {
        }
    }

    /** An application subclass of a Spring class: searched, since it may add listener methods. */
    static final class ApplicationExecutor extends SimpleAsyncTaskExecutor {
        @KafkoListener(topics = "t")
        void on(String value) {
        }
    }
}
