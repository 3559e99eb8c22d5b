package dev.kafko.spring.autoconfigure;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.verify;

import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.ProducerListener;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

/**
 * A test's {@code @MockitoBean ProducerListener<K, V>} sits beside the auto-configured
 * {@code ProducerListener<?, ?>} (it does not replace it, as {@code @MockitoBean KafkoTemplate<K, V>} does not):
 * the template tells the mock, where it had warned of several listeners and told none.
 */
@SpringBootTest(classes = MockedProducerListenerTest.App.class,
        properties = {"kafko.ephemeral=true", "kafko.topics.sent.partitions=1"})
class MockedProducerListenerTest {

    @MockitoBean
    ProducerListener<String, String> producerListener;
    @Autowired
    KafkoTemplate<String, String> template;

    @Test
    void theTemplateTellsTheMockedProducerListener() {
        template.send("sent", "k", "v").join();
        verify(producerListener, timeout(10_000)).onSuccess(any());
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
