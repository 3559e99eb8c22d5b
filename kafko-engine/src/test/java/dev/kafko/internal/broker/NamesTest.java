package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.InvalidNameException;
import org.junit.jupiter.api.Test;

class NamesTest {

    @Test
    void acceptsKafkaStyleNames() {
        for (String ok : new String[] {"a", "orders", "Orders-v2", "a.b_c-d", "...", "x".repeat(249), "0"}) {
            assertThat(Names.isValid(ok)).as(ok).isTrue();
            assertThat(Names.check("topic", ok)).isEqualTo(ok);
        }
    }

    @Test
    void refusesNamesThatCouldEscapeTheDataDirectoryOrBreakTheRule() {
        for (String bad : new String[] {"", ".", "..", "../x", "a/b", "a\\b", "a\u0000b", "x".repeat(250), "a b",
            "ä", "a:b", "*"}) {
            assertThat(Names.isValid(bad)).as(bad).isFalse();
            assertThatThrownBy(() -> Names.check("topic", bad))
                    .isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("[A-Za-z0-9._-]")
                    .hasMessageContaining("249");
        }
    }

    @Test
    void messageNamesTheBadNameWithControlCharactersEscaped() {
        assertThatThrownBy(() -> Names.check("group", "bad\u0000name"))
                .hasMessageContaining("group name 'bad\\u0000name'");
        assertThatThrownBy(() -> Names.check("topic", "../x")).hasMessageContaining("'../x'");
    }
}
