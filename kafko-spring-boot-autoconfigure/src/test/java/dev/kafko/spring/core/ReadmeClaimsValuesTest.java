package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * README, "Values and keys": "The JSON comes from the application's Jackson JsonMapper bean when there is exactly
 * one (Boot's, which spring.jackson.* configures), or the @Primary one of several, else from a default one."
 */
class ReadmeClaimsValuesTest {

    record Order(String orderId, int amount) {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void theOneJsonMapperBeanWritesTheValues() {
        runner.withUserConfiguration(OneMapper.class).run(context ->
                assertThat(sentJson(context)).isEqualTo("{\"order_id\":\"o-1\",\"amount\":5}"));
    }

    @Test
    void thePrimaryOfSeveralJsonMapperBeansWritesTheValues() {
        runner.withUserConfiguration(TwoMappersOnePrimary.class).run(context ->
                assertThat(sentJson(context)).isEqualTo("{\"order_id\":\"o-1\",\"amount\":5}"));
    }

    @Test
    void severalJsonMapperBeansAndNonePrimaryLeaveTheDefaultOne() {
        runner.withUserConfiguration(TwoMappers.class).run(context ->
                assertThat(sentJson(context)).isEqualTo("{\"orderId\":\"o-1\",\"amount\":5}"));
    }

    @SuppressWarnings("unchecked")
    private static String sentJson(org.springframework.context.ApplicationContext context) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        template.send("orders", 0, null, new Order("o-1", 5)).join();
        try (Consumer consumer = context.getBean(Kafko.class).consumer("orders")) {
            List<KafkoRecord> records = consumer.poll(Duration.ofSeconds(5));
            assertThat(records).hasSize(1);
            return new String(records.get(0).value(), StandardCharsets.UTF_8);
        }
    }

    static JsonMapper snakeCase() {
        return JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
    }

    @Configuration(proxyBeanMethods = false)
    static class OneMapper {
        @Bean
        JsonMapper snakeCaseMapper() {
            return snakeCase();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoMappersOnePrimary {
        @Bean
        @Primary
        JsonMapper snakeCaseMapper() {
            return snakeCase();
        }

        @Bean
        JsonMapper otherMapper() {
            return JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoMappers {
        @Bean
        JsonMapper snakeCaseMapper() {
            return snakeCase();
        }

        @Bean
        JsonMapper otherMapper() {
            return JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE).build();
        }
    }
}
