package dev.kafko.tryout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Errors" bullet: a null where a value is required is a {@code NullPointerException} naming the
 * parameter (or the element), thrown before anything changes.
 */
class ArgumentErrorsTryoutTest {

    @TempDir
    Path dir;

    @Test
    void pauseAndResumeNameANullCollectionOrElementAndChangeNothing() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(2).build());
            try (Consumer c = k.groupConsumer("inventory", "projector")) {
                c.pause(List.of(1));
                assertThatThrownBy(() -> c.pause(null)).isInstanceOf(NullPointerException.class).hasMessage("partitions");
                assertThatThrownBy(() -> c.pause(Arrays.asList(0, null)))
                        .isInstanceOf(NullPointerException.class).hasMessage("partitions: a null partition");
                assertThatThrownBy(() -> c.resume(null)).isInstanceOf(NullPointerException.class).hasMessage("partitions");
                assertThatThrownBy(() -> c.resume(Arrays.asList(1, null)))
                        .isInstanceOf(NullPointerException.class).hasMessage("partitions: a null partition");
                assertThat(c.paused()).as("nothing changed").containsExactly(1);

                assertThatThrownBy(() -> c.pause(List.of(0, 7))).isInstanceOf(InvalidPartitionException.class);
                c.resume(List.of(7)); // not paused (nor assigned): nothing happens
                assertThat(c.paused()).containsExactly(1);
                c.close();
                // arguments are checked first, then the close
                assertThatThrownBy(() -> c.resume(null)).isInstanceOf(NullPointerException.class).hasMessage("partitions");
                assertThatThrownBy(() -> c.resume(List.of(1))).isInstanceOf(KafkoClosedException.class);
            }
        }
    }

    @Test
    void checkNameNamesANullKind() {
        assertThatThrownBy(() -> Kafko.checkName(null, "inventory")).isInstanceOf(NullPointerException.class).hasMessage("kind");
        assertThatThrownBy(() -> Kafko.checkName("group", null)).isInstanceOf(NullPointerException.class).hasMessage("group");
    }
}
