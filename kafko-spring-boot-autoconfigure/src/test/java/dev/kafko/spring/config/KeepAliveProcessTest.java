package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.kafko.spring.core.KafkoTemplate;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An application whose only work is a listener (no web server) runs until it is told to stop, as with
 * spring-kafka, and exits at SIGTERM: its members are daemon threads, the registry's keep-alive is not.
 */
class KeepAliveProcessTest {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import({Worker.Listener.class, Worker.SlowToClose.class, Worker.ExitOnDeath.class})
    public static class Worker {

        static volatile Thread main;
        static volatile ConfigurableApplicationContext context;

        /** {@code <data dir> [run | never-started | stopped | exit-from-listener | exit-after-slow-close]}. */
        public static void main(String[] args) {
            String mode = args.length > 1 ? args[1] : "run";
            main = Thread.currentThread();
            context = new SpringApplicationBuilder(Worker.class).web(WebApplicationType.NONE)
                    .properties("kafko.data-dir=" + args[0], "logging.level.root=warn",
                            "worker.auto-startup=" + !mode.equals("never-started"),
                            // a close that takes longer than the listeners' shutdown timeout, for reasons of its own
                            "kafko.listener.shutdown-timeout=1s",
                            "worker.close-millis=" + (mode.equals("exit-after-slow-close") ? 2500 : 0)).run();
            if (mode.equals("stopped")) {
                context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("worker").stop();
            }
            if (mode.equals("exit-from-listener") || mode.equals("exit-after-slow-close")) {
                context.getBean(KafkoTemplate.class).send("work", "exit");
            }
            if (mode.equals("exit-on-death")) {
                context.getBean(KafkoTemplate.class).send("work", "die");
            }
            // main returns here: only the application's own threads keep the JVM alive
        }

        static class Listener {
            @KafkoListener(id = "worker", topics = "work", autoStartup = "${worker.auto-startup}")
            void on(String value) throws InterruptedException {
                if (value.equals("exit")) {
                    main.join(); // as a batch tool's listener that finds it has caught up, after main returned
                    System.exit(SpringApplication.exit(context, () -> 7));
                }
                if (value.equals("die")) {
                    main.join();
                    throw new OutOfMemoryError("simulated"); // the member's thread dies
                }
            }
        }

        /** An application that exits with a code of its own when a listener's thread died. */
        static class ExitOnDeath {
            @org.springframework.context.event.EventListener
            void on(dev.kafko.spring.event.ConsumerStoppedEvent event) {
                if (event.getReason() == dev.kafko.spring.event.ConsumerStoppedEvent.Reason.ERROR) {
                    System.exit(SpringApplication.exit(context, () -> 3));
                }
            }
        }

        /** A bean whose close takes {@code worker.close-millis} (a pool drained, a file flushed). */
        static class SlowToClose implements org.springframework.beans.factory.DisposableBean {
            @org.springframework.beans.factory.annotation.Value("${worker.close-millis}")
            long closeMillis;

            @Override
            public void destroy() throws InterruptedException {
                Thread.sleep(closeMillis);
            }
        }
    }

    private static Process worker(Path dir, String mode) throws java.io.IOException {
        return new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Worker.class.getName(), dir.resolve("data").toString(),
                mode)).redirectErrorStream(true).redirectOutput(dir.resolve(mode + ".log").toFile()).start();
    }

    @Test
    void anApplicationWhoseListenersDoNotRunExitsByItself(@TempDir Path dir) throws Exception {
        for (String mode : List.of("never-started", "stopped")) {
            Process p = worker(dir, mode);
            try {
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s: exited by itself: %s", mode,
                        read(dir.resolve(mode + ".log"))).isTrue();
                assertThat(p.exitValue()).as(mode).isZero();
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void aListenerThatExitsTheApplicationWithACodeGetsItsCode(@TempDir Path dir) throws Exception {
        // System.exit(SpringApplication.exit(context, () -> 7)) on the listener's daemon thread: the close released
        // the keep-alive, and the JVM, whose main had returned, exited with 0 before the listener reached System.exit
        assertExitCode(dir, "exit-from-listener", 7);
    }

    @Test
    void aListenerThatExitsTheApplicationGetsItsCodeWhenTheCloseTakesLongerThanTheShutdownTimeout(@TempDir Path dir)
            throws Exception {
        // the hold was released shutdown-timeout (1 s) after the close began, while a bean still closed (2.5 s): the
        // JVM, whose main had returned, exited with 0 before the listener's System.exit(7)
        assertExitCode(dir, "exit-after-slow-close", 7);
    }

    @Test
    void anApplicationThatExitsWhenAListenerDiedGetsItsCode(@TempDir Path dir) throws Exception {
        // System.exit(SpringApplication.exit(context, () -> 3)) from a ConsumerStoppedEvent, which the dying member
        // publishes on its own (daemon) thread: the close released the keep-alive and the JVM exited with 0 first
        assertExitCode(dir, "exit-on-death", 3);
    }

    /** Runs the worker in {@code mode} and checks that it exits by itself, with {@code code}. */
    private static void assertExitCode(Path dir, String mode, int code) throws Exception {
        Process p = worker(dir, mode);
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited: %s", read(dir.resolve(mode + ".log"))).isTrue();
            assertThat(p.exitValue()).as("exit code: %s", read(dir.resolve(mode + ".log"))).isEqualTo(code);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aListenerOnlyApplicationStaysUpAfterMainReturnsAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("run.log");
        Process p = worker(dir, "run");
        try {
            // started once kafko locked its directory; main has returned well before this wait ends
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(dir.resolve("data").resolve(".lock")) && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(p.waitFor(3, TimeUnit.SECONDS)).as("still running 3 s after start: %s", read(log)).isFalse();
            p.destroy(); // SIGTERM: the shutdown hook closes the context, and the keep-alive ends
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("exited after SIGTERM: %s", read(log)).isTrue();
            assertThat(Files.readString(dir.resolve("data").resolve(".lock"))).as("closed: lock record cleared").isEmpty();
        } finally {
            p.destroyForcibly();
        }
    }

    private static String read(Path log) throws java.io.IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }
}
