package dev.kafko.spring.starter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.test.KafkoTestUtils;
import dev.kafko.spring.transaction.KafkoTransactionManager;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.annotation.Transactional;

/**
 * What an application that depends on the starter alone gets of the README's section on transactions: no
 * {@code @EnableTransactionManagement} of its own, as with spring-kafka's Boot support.
 */
class StarterTransactionsTest {

    /**
     * "{@code @Bean KafkoTransactionManager kafkoTransactionManager(LogBackend backend)}: kafko's own manager, for
     * {@code @Transactional("kafkoTransactionManager")}" — the method runs in its transaction, which drops the
     * records when it throws, without the application enabling transaction management itself.
     */
    @Test
    void aTransactionalMethodRunsInKafkosManagerWithTheStarterAlone() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class, Orders.class)
                .run("--kafko.ephemeral=true", "--kafko.template.transactional=true", "--spring.main.banner-mode=off")) {
            Orders orders = context.getBean(Orders.class);
            orders.place("order-1", false);
            assertThatThrownBy(() -> orders.place("order-2", true)).hasMessage("refused order-2");
            assertThat(KafkoTestUtils.records(context, "orders")).extracting(r -> new String(r.value()))
                    .containsExactly("order-1");
        }
    }

    @SpringBootApplication
    static class App {

        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }
    }

    static class Orders {

        private final KafkoTemplate<String, String> template;

        Orders(KafkoTemplate<String, String> template) {
            this.template = template;
        }

        @Transactional("kafkoTransactionManager")
        public void place(String order, boolean refuse) {
            template.send("orders", order);
            if (refuse) {
                throw new IllegalStateException("refused " + order);
            }
        }
    }
}
