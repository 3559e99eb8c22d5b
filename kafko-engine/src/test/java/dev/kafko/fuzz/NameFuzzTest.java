package dev.kafko.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kafko.InvalidNameException;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Fuzzes the naming rule: a name is accepted only when it is 1 to 249 characters of
 * {@code [A-Za-z0-9._-]} and not {@code .} or {@code ..}, and an accepted name resolves to a direct
 * child of the data directory; anything else is an {@link InvalidNameException}.
 */
class NameFuzzTest {

    private static final Path ROOT = Path.of("/data");

    @FuzzTest(maxDuration = "30s")
    void acceptedNamesStayInsideTheDataDirectory(byte[] data) {
        // UTF-16 reaches every char, lone surrogates and NUL included
        String name = new String(data, StandardCharsets.UTF_16BE);
        boolean legal = name.matches("[A-Za-z0-9._-]{1,249}") && !name.equals(".") && !name.equals("..");
        try {
            BrokerBridge.checkName("topic", name);
            assertThat(legal).as("accepted '%s'", name).isTrue();
            Path p = ROOT.resolve(name).normalize();
            assertThat(p.getParent()).isEqualTo(ROOT);
            assertThat(p.getFileName().toString()).isEqualTo(name);
        } catch (InvalidNameException e) {
            assertThat(legal).as("rejected '%s'", name).isFalse();
        }
    }
}
