package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A declared topic whose codec the JVM lacks fails the start-up whether the topic is new or exists already: an
 * existing one used to pass, and then every send to it and every poll of it failed (a listener logged an ERROR
 * each poll timeout) for the life of the process.
 */
class MissingCodecProvisionerTest {

    @TempDir
    Path dir;

    @Test
    void anExistingDeclaredTopicWhoseCodecIsMissingFailsTheStartUpAndNothingIsCreated() throws Exception {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("orders", TopicConfig.builder().compression(Compression.LZ4).build());
            kafko.producer("orders").send(new byte[1], new byte[100]).join();
        }

        List<String> existing = probe("orders:LZ4,audit:NONE");
        assertThat(existing.get(0)).startsWith("result=failed dev.kafko.CompressionUnavailableException"
                + " kafko.topics.orders: topic 'orders' exists with compression LZ4");
        assertThat(existing.get(1)).isEqualTo("topics=[orders]");

        // a new one asks for it: failed before too, but after the topics declared before it were created
        List<String> fresh = probe("audit:NONE,events:ZSTD");
        assertThat(fresh.get(0)).startsWith("result=failed dev.kafko.CompressionUnavailableException"
                + " kafko.topics.events: topic 'events' asks for compression ZSTD");
        assertThat(fresh.get(1)).isEqualTo("topics=[orders]");

        assertThat(probe("audit:NONE")).containsExactly("result=started", "topics=[audit, orders]");
    }

    /** Runs {@link MissingCodecProvisionerProbe} in a JVM with this one's classpath minus the codec jars. */
    private List<String> probe(String declared) throws Exception {
        String classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> !p.contains("lz4-java") && !p.contains("zstd-jni"))
                .collect(Collectors.joining(File.pathSeparator));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", classpath, MissingCodecProvisionerProbe.class.getName(),
                dir.toString(), declared).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().filter(l -> l.startsWith("result=") || l.startsWith("topics=")).toList();
    }
}
