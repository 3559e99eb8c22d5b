package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** zstd-jni on the classpath whose native library does not load is not reported as a missing jar. */
class CompressionNativeLoadTest {

    @TempDir
    Path dir;

    @Test
    void nativeLibraryThatCannotUnpackIsReportedAsSuchNotAsAMissingJar() throws Exception {
        // zstd-jni unpacks its library into java.io.tmpdir: one that does not exist (or is noexec) stops the load
        List<String> out = probe("-Djava.io.tmpdir=" + dir.resolve("missing"));
        assertThat(out).contains("available=false");
        String message = out.stream().filter(l -> l.startsWith("message=")).findFirst().orElseThrow();
        assertThat(message).contains("com.github.luben:zstd-jni is on the classpath but failed to load")
                .doesNotContain("add com.github.luben:zstd-jni");
        assertThat(out).anyMatch(l -> l.startsWith("cause=") && !l.equals("cause=null"));
    }

    @Test
    void deniedNativeAccessNamesTheFlagThatAllowsIt() throws Exception {
        assumeTrue(Runtime.version().feature() >= 24, "--illegal-native-access exists from Java 24 on");
        List<String> out = probe("--illegal-native-access=deny");
        assertThat(out).contains("available=false");
        assertThat(out).anyMatch(l -> l.startsWith("message=") && l.contains("--enable-native-access=ALL-UNNAMED"));
        assertThat(out).anyMatch(l -> l.startsWith("cause=java.lang.IllegalCallerException"));
    }

    private static List<String> probe(String jvmOption) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), jvmOption,
                "-cp", System.getProperty("java.class.path"), ZstdLoadProbe.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().filter(l -> l.contains("=")).toList();
    }
}
