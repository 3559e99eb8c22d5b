package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

/**
 * A test that mocks the template its own code sends with: {@code @MockitoBean KafkoTemplate<K, V>}
 * adds a second template beside the auto-configured one, and the listeners' {@code @SendTo} replies
 * keep going to the log through the auto-configured one.
 */
@SpringBootTest(classes = MockedTemplateTest.App.class, properties = "kafko.ephemeral=true")
class MockedTemplateTest {

    static final List<String> STORED = new CopyOnWriteArrayList<>();

    @MockitoBean
    KafkoTemplate<String, String> mocked;
    @Autowired
    @Qualifier("kafkoTemplate")
    KafkoTemplate<Object, Object> real;
    @Autowired
    KafkoListenerEndpointRegistry registry;

    @Test
    void repliesGoThroughTheAutoConfiguredTemplateWhileTheApplicationsOwnSendsHitTheMock() {
        STORED.clear(); // SpiedTemplateTest's context stores here too
        real.send("orders", "o-1", "book").join();
        KafkoTestUtils.waitForListeners(registry, Duration.ofSeconds(20));
        assertThat(STORED).containsExactly("priced:book");
        mocked.send("orders", "o-2", "pen");
        verify(mocked).send(eq("orders"), eq("o-2"), any());
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import({Pricing.class, Store.class})
    static class App {
    }

    static class Pricing {
        @KafkoListener(id = "pricing", topics = "orders")
        @SendTo("priced")
        String price(String order) {
            return "priced:" + order;
        }
    }

    static class Store {
        @KafkoListener(id = "store", topics = "priced")
        void store(String priced) {
            STORED.add(priced);
        }
    }
}
