package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The keys a compaction pass remembers: exact, as a hash map would be, and within their byte budget. */
class KeyOffsetMapTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What the map must answer, as a plain hash map of whole keys. */
    private record Entry(long offset, int segment, boolean expired) {
    }

    @ParameterizedTest
    @ValueSource(longs = {1L, 7L, 42L})
    void answersAsAHashMapOfWholeKeysThroughItsGrowth(long seed) {
        Random random = new Random(seed);
        KeyOffsetMap map = new KeyOffsetMap(1L << 30);
        Map<ByteBuffer, Entry> model = new HashMap<>();
        byte[][] keys = new byte[6000][];
        for (int k = 0; k < keys.length; k++) {
            // lengths 0 to 40 and keys that are prefixes of others, or differ in one byte past the eighth
            keys[k] = new byte[random.nextInt(41)];
            random.nextBytes(keys[k]);
            if (k > 0 && k % 5 == 0 && keys[k - 1].length > 9) {
                keys[k] = keys[k - 1].clone();
                keys[k][9] ^= 1;
            } else if (k > 0 && k % 7 == 0 && keys[k - 1].length > 0) {
                keys[k] = java.util.Arrays.copyOf(keys[k - 1], keys[k - 1].length - 1);
            }
        }
        for (long offset = 0; offset < 60_000; offset++) {
            byte[] key = keys[random.nextInt(keys.length)];
            int segment = (int) (offset / 1000);
            boolean expired = random.nextInt(10) == 0;
            Entry before = model.put(ByteBuffer.wrap(key), new Entry(offset, segment, expired));
            assertThat(map.put(key, offset, segment, expired)).as("put at " + offset)
                    .isEqualTo(before == null ? KeyOffsetMap.NEW : before.segment());
        }
        assertThat(map.size()).isEqualTo(model.size());
        for (byte[] key : keys) {
            Entry e = model.get(ByteBuffer.wrap(key));
            int slot = map.find(key);
            if (e == null) {
                assertThat(slot).isEqualTo(-1);
            } else {
                assertThat(map.offset(slot)).isEqualTo(e.offset());
                assertThat(map.expired(slot)).isEqualTo(e.expired());
            }
        }
        boolean[] losing = new boolean[60];
        map.markExpired(losing);
        boolean[] expected = new boolean[60];
        model.values().stream().filter(Entry::expired).forEach(e -> expected[e.segment()] = true);
        assertThat(losing).isEqualTo(expected);
    }

    @Test
    void keysThatDoNotFitTheBudgetAreRefusedAndNothingOfThemIsKept() {
        long budget = 64 << 10;
        KeyOffsetMap map = new KeyOffsetMap(budget);
        int n = 0;
        while (map.put(bytes("key-" + n), n, 0, false) == KeyOffsetMap.NEW) {
            assertThat(map.bytes()).as("after key " + n).isLessThanOrEqualTo(budget);
            n++;
        }
        // 64 KiB at 31 to 57 bytes a key (its slot, its 4-byte length, the table doubling as it grows) plus 8 or 9
        assertThat(n).isBetween(600, 2000);
        assertThat(map.size()).isEqualTo(n);
        assertThat(map.find(bytes("key-" + n))).as("the refused key").isEqualTo(-1);
        assertThat(map.bytes()).isLessThanOrEqualTo(budget);
        // a key already held is still updated
        assertThat(map.put(bytes("key-0"), 1_000_000, 3, true)).isEqualTo(0);
        assertThat(map.offset(map.find(bytes("key-0")))).isEqualTo(1_000_000);
        assertThat(map.put(bytes("another"), 1_000_001, 3, false)).isEqualTo(KeyOffsetMap.FULL);
    }

    @Test
    void theFirstKeyIsTakenWhateverItsSizeSoThatEveryPassMakesProgress() {
        KeyOffsetMap map = new KeyOffsetMap(64 << 10);
        byte[] huge = new byte[1 << 20];
        huge[12345] = 1;
        assertThat(map.put(huge, 5, 0, false)).isEqualTo(KeyOffsetMap.NEW);
        assertThat(map.offset(map.find(huge.clone()))).isEqualTo(5);
        assertThat(map.put(bytes("small"), 6, 0, false)).isEqualTo(KeyOffsetMap.FULL);
        assertThat(map.find(new byte[1 << 20])).as("same length, one byte apart").isEqualTo(-1);
    }

    @Test
    void anEmptyKeyIsAKeyOfItsOwn() {
        KeyOffsetMap map = new KeyOffsetMap(1 << 20);
        assertThat(map.put(new byte[0], 1, 2, false)).isEqualTo(KeyOffsetMap.NEW);
        assertThat(map.put(new byte[1], 3, 4, false)).isEqualTo(KeyOffsetMap.NEW);
        assertThat(map.put(new byte[0], 5, 6, true)).isEqualTo(2);
        assertThat(map.offset(map.find(new byte[0]))).isEqualTo(5);
        assertThat(map.offset(map.find(new byte[1]))).isEqualTo(3);
    }
}
