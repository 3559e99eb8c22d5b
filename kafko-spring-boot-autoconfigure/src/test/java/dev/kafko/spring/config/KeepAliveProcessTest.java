package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An application whose only work is a listener (no web server) runs until it is told to stop, as with
 * spring-kafka, and exits at SIGTERM: its members are daemon threads, the registry's keep-alive is not.
 */
class KeepAliveProcessTest {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Worker.Listener.class)
    public static class Worker {

        /** {@code <data dir> [run | never-started | stopped]}. */
        public static void main(String[] args) {
            String mode = args.length > 1 ? args[1] : "run";
            var context = new SpringApplicationBuilder(Worker.class).web(WebApplicationType.NONE)
                    .properties("kafko.data-dir=" + args[0], "logging.level.root=warn",
                            "worker.auto-startup=" + !mode.equals("never-started")).run();
            if (mode.equals("stopped")) {
                context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("worker").stop();
            }
            // main returns here: only the application's own threads keep the JVM alive
        }

        static class Listener {
            @KafkoListener(id = "worker", topics = "work", autoStartup = "${worker.auto-startup}")
            void on(String value) {
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
