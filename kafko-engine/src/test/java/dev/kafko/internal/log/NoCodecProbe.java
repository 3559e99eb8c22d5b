package dev.kafko.internal.log;

import dev.kafko.Compression;
import dev.kafko.CompressionUnavailableException;
import dev.kafko.TopicConfig;
import java.nio.file.Path;

/**
 * Run in a JVM whose classpath lacks lz4-java and zstd-jni (see {@link CompressionUnavailableTest}):
 * writing and reading with a missing codec must fail with {@link CompressionUnavailableException},
 * never with {@code NoClassDefFoundError}. Prints one line per check.
 */
final class NoCodecProbe {

    private NoCodecProbe() {
    }

    public static void main(String[] args) {
        Path written = Path.of(args[0]);
        Path fresh = Path.of(args[1]);
        for (Compression c : new Compression[] {Compression.LZ4, Compression.ZSTD}) {
            System.out.println(c + " available=" + c.isAvailable());
            try (PartitionLog log = Logs.open(fresh.resolve(c.name()), TopicConfig.builder().compression(c).build())) {
                log.append(Logs.record(0, 10));
                System.out.println(c + " write=appended");
            } catch (CompressionUnavailableException e) {
                System.out.println(c + " write=unavailable");
            }
            try (PartitionLog log = Logs.open(written.resolve(c.name()), TopicConfig.builder().compression(c).build())) {
                log.read(0, 10, 1000);
                System.out.println(c + " read=decoded");
            } catch (CompressionUnavailableException e) {
                System.out.println(c + " read=unavailable");
            }
        }
    }
}
