package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;

import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

/**
 * The README's way to verify what the application sends while it still reaches the log: a spy on the
 * auto-configured template by its declared type, {@code KafkoTemplate<?, ?>}. The application's own
 * {@code KafkoTemplate<String, String>} injection point gets the spy, and so do {@code @SendTo} replies. The
 * application is {@link MockedTemplateTest}'s: a pricing listener that replies, a store of the replies.
 */
@SpringBootTest(classes = MockedTemplateTest.App.class, properties = "kafko.ephemeral=true")
class SpiedTemplateTest {

    @MockitoSpyBean
    KafkoTemplate<?, ?> spied;
    @Autowired
    KafkoTemplate<String, String> applications;
    @Autowired
    KafkoListenerEndpointRegistry registry;

    @Test
    @SuppressWarnings("unchecked")
    void theSpyWrapsTheAutoConfiguredTemplateSoSendsAreVerifiedAndStillWritten() {
        MockedTemplateTest.STORED.clear();
        assertThat((Object) applications).isSameAs(spied);
        applications.send("orders", "o-1", "book").join();
        KafkoTestUtils.waitForListeners(registry, Duration.ofSeconds(20));
        assertThat(MockedTemplateTest.STORED).containsExactly("priced:book");
        KafkoTemplate<String, String> typed = (KafkoTemplate<String, String>) spied;
        verify(typed).send(eq("orders"), eq("o-1"), eq("book"));
        verify(typed).send(eq("priced"), any(), any());
    }
}
