package dev.kafko.spring.core;

import dev.kafko.Compression;
import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Run in a JVM whose classpath lacks lz4-java and zstd-jni (see {@link MissingCodecProvisionerTest}): provisions
 * the declared topics of {@code args[1]} ({@code name:CODEC,...}) over the log of {@code args[0]} and prints one
 * line: {@code started}, or {@code failed <exception class> <message>}, then the topics the log holds.
 */
final class MissingCodecProvisionerProbe {

    private MissingCodecProvisionerProbe() {
    }

    public static void main(String[] args) {
        Map<String, TopicConfig> declared = new LinkedHashMap<>();
        for (String topic : args[1].split(",")) {
            String[] nameAndCodec = topic.split(":");
            declared.put(nameAndCodec[0],
                    TopicConfig.builder().compression(Compression.valueOf(nameAndCodec[1])).build());
        }
        try (Kafko kafko = Kafko.open(Path.of(args[0]))) {
            try {
                new KafkoTopicProvisioner(kafko, declared, false).afterPropertiesSet();
                System.out.println("result=started");
            } catch (RuntimeException e) {
                System.out.println("result=failed " + e.getClass().getName() + " " + e.getMessage());
            }
            System.out.println("topics=" + kafko.topics());
        }
    }
}
