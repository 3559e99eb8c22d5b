package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.RecordMessageConverter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * An answered request starts no thread. Each request's timer handed its end to the common pool even when a
 * reply had come; on a machine with one or two CPUs (the common pool's parallelism below 2, as in many
 * containers) {@code CompletableFuture} runs such a task on a new thread, so every answered request started
 * and ended a platform thread. Run in a child JVM with that parallelism, so that the test fails without the fix
 * whatever the machine's CPU count.
 */
class AnsweredRequestThreadsTest {

    static final int REQUESTS = 300;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Requester.Echo.class)
    public static class Requester {

        /** {@code <data dir>}: prints the threads started while {@link #REQUESTS} requests were answered. */
        public static void main(String[] args) throws Exception {
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Requester.class)
                    .web(WebApplicationType.NONE).properties("kafko.data-dir=" + args[0], "logging.level.root=warn")
                    .run()) {
                @SuppressWarnings("unchecked")
                ReplyingKafkoTemplate<String, String, String> rr = context.getBean(ReplyingKafkoTemplate.class);
                rr.sendAndReceive("echo.requests", "warm-up").get(30, TimeUnit.SECONDS);
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                long before = threads.getTotalStartedThreadCount();
                for (int i = 0; i < REQUESTS; i++) {
                    String reply = rr.sendAndReceive("echo.requests", "r" + i).get(30, TimeUnit.SECONDS);
                    if (!reply.equals("echo r" + i)) {
                        throw new AssertionError("request r" + i + " got " + reply);
                    }
                }
                System.out.println("parallelism=" + ForkJoinPool.getCommonPoolParallelism() + " started="
                        + (threads.getTotalStartedThreadCount() - before));
            }
        }

        @Bean
        ReplyingKafkoTemplate<String, String, String> requester(KafkoTemplate<String, String> kafkoTemplate,
                                                                LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "echo.replies", String.class);
        }

        static class Echo {
            @KafkoListener(id = "echo", topics = "echo.requests")
            @SendTo
            String echo(String text) {
                return "echo " + text;
            }
        }
    }

    @Test
    void answeredRequestsStartNoThreadAlsoWhereTheCommonPoolHasOneThread(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("requester.log");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.util.concurrent.ForkJoinPool.common.parallelism=1", "-cp", System.getProperty("java.class.path"),
                Requester.class.getName(), dir.resolve("data").toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("requester ended: %s", Files.readString(log)).isTrue();
            assertThat(p.exitValue()).as(Files.readString(log)).isZero();
        } finally {
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        assertThat(out).contains("parallelism=1");
        long started = Long.parseLong(out.replaceAll("(?s).*started=(\\d+).*", "$1"));
        // a few threads of kafko's own (a preparer, a linger) may come and go; one per request may not
        assertThat(started).as(out).isLessThan(REQUESTS / 10);
    }
}
