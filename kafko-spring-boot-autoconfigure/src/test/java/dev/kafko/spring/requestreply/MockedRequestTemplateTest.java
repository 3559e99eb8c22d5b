package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.RecordMessageConverter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link ReplyingKafkoTemplate} over a mocked {@link KafkoTemplate} (a test's {@code @MockitoBean KafkoTemplate<?, ?>}
 * replaces the bean it sends through): the request fails naming the mock, not with a {@code NullPointerException},
 * and leaves no request waiting for a reply that cannot come.
 */
class MockedRequestTemplateTest {

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        @SuppressWarnings("unchecked")
        ReplyingKafkoTemplate<String, String, String> quotes(LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(mock(KafkoTemplate.class), backend, converter, "quotes.replies",
                    String.class);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRequestThroughATemplateThatReturnsNoFutureFailsNamingItAndWaitsForNothing() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(Config.class)
                .withPropertyValues("kafko.ephemeral=true")
                .run(context -> {
                    ReplyingKafkoTemplate<String, String, String> quotes = context.getBean(ReplyingKafkoTemplate.class);
                    assertThatThrownBy(() -> quotes.sendAndReceive("quotes", "x"))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("'quotes'")
                            .hasMessageContaining("returned no future (a mock of the template bean?");
                    assertThat(quotes.pendingReplies()).isZero();
                });
    }
}
