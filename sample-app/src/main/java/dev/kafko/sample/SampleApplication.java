package dev.kafko.sample;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The kafko sample application: {@code POST /orders} → {@code orders} → payment processor →
 * {@code payments} → read model, with invalid orders in {@code orders.DLT}. With
 * {@code --sample.load=N} it first sends N orders, reports, and exits unless
 * {@code --sample.exit-after-load=false}.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class SampleApplication {

    public static void main(String[] args) {
        ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class, args);
        SampleProperties properties = context.getBean(SampleProperties.class);
        if (properties.load() > 0 && properties.exitAfterLoad()) {
            System.exit(SpringApplication.exit(context));
        }
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
