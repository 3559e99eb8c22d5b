package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The edges of a {@link KeyOffsetMap}'s budget: a key whose bytes reach the budget exactly is taken, one byte more is
 * refused, and the table grows only once it is three quarters full (keys of 4 bytes: 8 bytes each with their length;
 * the first table, 16 slots, takes 320 bytes).
 */
class KeyOffsetMapEdgesTest {

    private static final int TABLE_16 = 16 * KeyOffsetMap.SLOT_BYTES;
    private static final int TABLE_32 = 32 * KeyOffsetMap.SLOT_BYTES;

    /** A key of 4 bytes, distinct for each {@code n}. */
    private static byte[] key(int n) {
        return new byte[] {(byte) 'k', (byte) (n >> 16), (byte) (n >> 8), (byte) n};
    }

    @Test
    void aSecondKeyThatFillsTheBudgetExactlyIsTakenAndOneByteLessRefusesIt() {
        KeyOffsetMap map = new KeyOffsetMap(TABLE_16 + 16);
        assertThat(map.put(key(1), 10, 0, false)).isEqualTo(KeyOffsetMap.NEW);
        assertThat(map.put(key(2), 11, 0, false)).isEqualTo(KeyOffsetMap.NEW);
        assertThat(map.bytes()).isEqualTo(TABLE_16 + 16);
        assertThat(map.put(key(3), 12, 0, false)).isEqualTo(KeyOffsetMap.FULL);

        KeyOffsetMap less = new KeyOffsetMap(TABLE_16 + 15);
        assertThat(less.put(key(1), 10, 0, false)).as("the first key, always").isEqualTo(KeyOffsetMap.NEW);
        assertThat(less.put(key(2), 11, 0, false)).isEqualTo(KeyOffsetMap.FULL);
        assertThat(less.size()).isEqualTo(1);
        assertThat(less.find(key(2))).isEqualTo(-1);
    }

    @Test
    void twelveKeysFillTheFirstTableAndAThirteenthNeedsItDoubled() {
        // the first table holds 12 keys (three quarters of 16): 320 bytes of slots and 96 of keys, exactly the budget
        KeyOffsetMap map = new KeyOffsetMap(TABLE_16 + 12 * 8);
        for (int n = 0; n < 12; n++) {
            assertThat(map.put(key(n), n, 0, false)).as("key " + n).isEqualTo(KeyOffsetMap.NEW);
        }
        assertThat(map.bytes()).isEqualTo(TABLE_16 + 12 * 8);
        assertThat(map.put(key(12), 12, 0, false)).as("the table would double").isEqualTo(KeyOffsetMap.FULL);
        assertThat(map.put(key(3), 99, 1, true)).as("a key held is still updated").isEqualTo(0);
        for (int n = 0; n < 12; n++) {
            assertThat(map.offset(map.find(key(n)))).isEqualTo(n == 3 ? 99 : n);
        }

        // with room: the table doubles at the thirteenth key, not before, and every key is found after the move
        KeyOffsetMap roomy = new KeyOffsetMap(1 << 20);
        long[] bytes = new long[14];
        bytes[0] = roomy.bytes();
        for (int n = 0; n < 13; n++) {
            assertThat(roomy.put(key(n), 100 + n, n, n % 2 == 0)).isEqualTo(KeyOffsetMap.NEW);
            bytes[n + 1] = roomy.bytes();
        }
        assertThat(bytes[12] - bytes[11]).as("the twelfth key, in the table of 16").isLessThan(TABLE_16);
        assertThat(bytes[13] - bytes[12]).as("the thirteenth key doubles the table")
                .isGreaterThanOrEqualTo(TABLE_32 - TABLE_16);
        for (int n = 0; n < 13; n++) {
            int slot = roomy.find(key(n));
            assertThat(roomy.offset(slot)).isEqualTo(100 + n);
            assertThat(roomy.expired(slot)).isEqualTo(n % 2 == 0);
            assertThat(roomy.put(key(n), 200 + n, 20, false)).as("the segment of key " + n).isEqualTo(n);
        }
    }

    @Test
    void theExpiredMarkOfAKeyFollowsItsLatestRecord() {
        KeyOffsetMap map = new KeyOffsetMap(1 << 20);
        map.put(key(1), 1, 0, true);
        map.put(key(2), 2, 1, true);
        map.put(key(1), 3, 2, false); // written again: no longer a tombstone
        boolean[] losing = new boolean[3];
        map.markExpired(losing);
        assertThat(losing).containsExactly(false, true, false);
        assertThat(map.expired(map.find(key(1)))).isFalse();
        assertThat(map.expired(map.find(key(2)))).isTrue();
    }

    @Test
    void theKeysGrowByDoublingNotByEachKey() {
        // a copy of every key held at each new key would make a pass over millions of keys quadratic
        KeyOffsetMap map = new KeyOffsetMap(64 << 20);
        Set<Long> sizes = new HashSet<>();
        for (int n = 0; n < 10_000; n++) {
            assertThat(map.put(key(n), n, 0, false)).isEqualTo(KeyOffsetMap.NEW);
            sizes.add(map.bytes());
        }
        // 10,000 keys of 8 bytes with their lengths: the table doubles 10 times, the keys' array 14 times
        assertThat(sizes).hasSizeLessThan(40);
        assertThat(map.size()).isEqualTo(10_000);
    }
}
