package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
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

class CompressionUnavailableTest {

    @TempDir
    Path dir;

    @Test
    void missingCodecJarsFailWritesAndReadsWithCompressionUnavailableException() throws Exception {
        for (Compression c : new Compression[] {Compression.LZ4, Compression.ZSTD}) {
            try (PartitionLog log = Logs.open(dir.resolve("written").resolve(c.name()),
                    TopicConfig.builder().compression(c).build())) {
                log.append(Logs.batch(0, 5, 100));
            }
        }
        // this test JVM's classpath minus the codec jars
        String classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> !p.contains("lz4-java") && !p.contains("zstd-jni"))
                .collect(Collectors.joining(File.pathSeparator));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", classpath, NoCodecProbe.class.getName(),
                dir.resolve("written").toString(), dir.resolve("fresh").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        List<String> lines = out.lines().filter(l -> l.contains("=")).toList();
        assertThat(lines).as(out).containsExactly(
                "LZ4 available=false", "LZ4 write=unavailable", "LZ4 read=unavailable",
                "ZSTD available=false", "ZSTD write=unavailable", "ZSTD read=unavailable");
    }
}
