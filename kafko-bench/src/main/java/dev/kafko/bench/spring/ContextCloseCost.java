package dev.kafko.bench.spring;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoOptionsCustomizer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What closing a test's context costs with an ephemeral log: the log closed as it is for a directory deleted next
 * ({@code ephemeral}, the starter's way) against the same log closed durably ({@code ephemeral-durable}: every
 * partition fsynced, indexed and marked clean, as a {@code kafko.data-dir} is), one context of each in turn in one
 * JVM. Each context has two topics (one partition, four), three listener members, and 200 records received before
 * it closes; the time is that of {@code close()}.
 *
 * <pre>java -cp kafko-bench/target/benchmarks.jar dev.kafko.bench.spring.ContextCloseCost [--contexts=20]</pre>
 */
public final class ContextCloseCost {

    private ContextCloseCost() {
    }

    public static void main(String[] args) {
        int contexts = Arrays.stream(args).filter(a -> a.startsWith("--contexts=")).findFirst()
                .map(a -> Integer.parseInt(a.substring("--contexts=".length()))).orElse(20);
        List<Double> deleted = new ArrayList<>();
        List<Double> durable = new ArrayList<>();
        for (int i = 0; i < contexts; i++) {
            deleted.add(closeMillis(List.of(CloseApp.class)));
            durable.add(closeMillis(List.of(CloseApp.class, DurableClose.class)));
        }
        System.out.printf("close of a context, median [min-max] of %d, the first of each left out:%n", contexts - 1);
        System.out.println("  ephemeral          " + summary(deleted.subList(1, deleted.size())));
        System.out.println("  ephemeral-durable  " + summary(durable.subList(1, durable.size())));
        System.out.printf("  first of each: %.1f ms, %.1f ms%n", deleted.get(0), durable.get(0));
    }

    @SuppressWarnings("unchecked")
    private static double closeMillis(List<Class<?>> sources) {
        ConfigurableApplicationContext context = BootContexts.start(sources,
                Map.of("kafko.ephemeral", "true", "kafko.topics.close-b.partitions", "4"),
                List.of(LogUnderTest.KAFKA_AUTO_CONFIGURATIONS));
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (int i = 0; i < 100; i++) {
            template.send("close-a", "k" + i, "v" + i);
            template.send("close-b", "k" + i, "v" + i);
        }
        template.flush();
        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
        long start = System.nanoTime();
        context.close();
        return (System.nanoTime() - start) / 1e6;
    }

    private static String summary(List<Double> millis) {
        double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return String.format("%.1f ms [%.1f-%.1f]", sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
    }

    /** Two listeners, three members. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class CloseApp {
        @KafkoListener(id = "close-a", topics = "close-a")
        void a(String value) {
        }

        @KafkoListener(id = "close-b", topics = "close-b", concurrency = "2")
        void b(String value) {
        }
    }

    /** The durable close a {@code kafko.data-dir} gets, on the same ephemeral directory. */
    @Configuration(proxyBeanMethods = false)
    static class DurableClose {
        @Bean
        KafkoOptionsCustomizer durableClose() {
            return builder -> builder.durableClose(true);
        }
    }
}
