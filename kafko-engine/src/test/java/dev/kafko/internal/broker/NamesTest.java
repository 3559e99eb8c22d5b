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

    /** The ends of each character range are in the rule, the characters just outside them are not. */
    @Test
    void theEndsOfEachCharacterRangeAreValidAndTheirNeighboursAreNot() {
        for (String ok : new String[] {"a", "z", "A", "Z", "0", "9", "azAZ09", "_", "-"}) {
            assertThat(Names.isValid(ok)).as(ok).isTrue();
            assertThat(Names.isValidGroup(ok)).as(ok).isTrue();
            assertThat(Names.check("group", ok)).isEqualTo(ok);
        }
        for (String bad : new String[] {"`", "{", "@", "[", "/", ":", "x`", "x{", "x@", "x[", "x/", "x:"}) {
            assertThat(Names.isValid(bad)).as(bad).isFalse();
            assertThat(Names.isValidGroup(bad)).as(bad).isFalse();
            assertThatThrownBy(() -> Names.check("group", bad)).isInstanceOf(InvalidNameException.class);
        }
        assertThat(Names.isValidGroup("x".repeat(249))).isTrue();
        assertThat(Names.isValidGroup("x".repeat(250))).isFalse();
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

    @Test
    void aTopicNameThatOnlyDiffersByDotOrUnderscoreFromAnExistingOneIsRefused(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        try (dev.kafko.Kafko k = dev.kafko.Kafko.open(dir)) {
            k.createTopic("orders.eu_west");
            for (String clash : new String[] {"orders_eu_west", "orders.eu.west", "orders_eu.west"}) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> k.createTopic(clash))
                        .isInstanceOf(dev.kafko.InvalidNameException.class)
                        .hasMessageContaining("topic '" + clash + "' collides with existing topic 'orders.eu_west'");
            }
            assertThat(k.topics()).containsExactly("orders.eu_west");
            assertThat(dir.resolve("orders_eu_west")).doesNotExist();
            k.createTopic("orders-eu-west"); // '-' is a character of its own
        }
    }
}
