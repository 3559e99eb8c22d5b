package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A test that mocks kafko's own beans ({@code @MockitoBean Kafko}, {@code @MockitoBean LogBackend}) gets an error
 * that says so, where it got {@code NullPointerException}s: the start fails naming the mocked {@code Kafko}; a
 * listener's start and the template's send over a mocked backend fail naming the backend (a listener's
 * polling thread had died of a bare {@code NullPointerException}).
 */
class MockedKafkoBeansTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    static class Listener {
        @KafkoListener(id = "orders-listener", topics = "orders")
        void on(String order) {
        }
    }

    @Test
    void aMockedKafkoFailsTheStartSayingSo() {
        runner.withBean(Kafko.class, () -> mock(Kafko.class)).withBean(Listener.class).run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining("The Kafko bean (")
                        .hasStackTraceContaining("has no options: a mock of it (@MockitoBean Kafko)?"));
    }

    @Test
    void aMockedBackendFailsTheStartOfAListenerSayingSo() {
        runner.withBean(LogBackend.class, () -> mock(LogBackend.class)).withBean(Listener.class).run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining("of listener 'orders-listener'"
                        + " returned no consumer for 'orders' (a mock of the LogBackend bean?"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aMockedBackendFailsTheTemplatesSendSayingSo() {
        runner.withBean(LogBackend.class, () -> mock(LogBackend.class)).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            assertThatThrownBy(() -> template.send("orders", "o-1"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("returned no producer for 'orders' (a mock of the LogBackend bean?")
                    .hasMessageContaining("of template 'kafkoTemplate'");
            KafkoTemplate<String, String> named = new KafkoTemplate<>(context.getBean(LogBackend.class),
                    context.getBean(dev.kafko.spring.support.RecordMessageConverter.class));
            named.setBeanName("ordersTemplate");
            assertThatThrownBy(() -> named.send("orders", "o-1")).hasMessageContaining("of template 'ordersTemplate'");
        });
    }
}
