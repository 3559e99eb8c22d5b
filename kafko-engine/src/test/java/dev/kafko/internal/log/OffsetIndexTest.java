package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The index's two searches, exactly (found by mutation testing, B116: the lookups above them check what an entry
 * says, so a search that returned an entry too early, too late or past the last one still gave right answers, only
 * slower, and no test saw the difference).
 */
class OffsetIndexTest {

    /** Entries at relative offsets 0, 10, 20, ...; the largest timestamp before entry i is 100 * i (none before 0). */
    private static OffsetIndex index(int entries) {
        OffsetIndex index = new OffsetIndex();
        for (int i = 0; i < entries; i++) {
            index.add(10 * i, 24 + 1000 * i, i == 0 ? Long.MIN_VALUE : 100L * i);
        }
        return index;
    }

    @Test
    void floorEntryIsTheLastEntryAtOrBelowTheOffset() {
        for (int n : new int[] {1, 2, 3, 5, 16, 17, 40}) {
            OffsetIndex index = index(n);
            assertThat(index.count()).isEqualTo(n);
            assertThat(index.floorEntry(-1)).isEqualTo(-1);
            for (int i = 0; i < n; i++) {
                assertThat(index.floorEntry(10 * i)).as("n=%d, offset %d", n, 10 * i).isEqualTo(i);
                assertThat(index.floorEntry(10 * i + 9)).as("n=%d, offset %d", n, 10 * i + 9).isEqualTo(i);
                assertThat(index.position(i)).isEqualTo(24 + 1000 * i);
                assertThat(index.relativeOffset(i)).isEqualTo(10 * i);
            }
            assertThat(index.floorEntry(Long.MAX_VALUE)).isEqualTo(n - 1);
        }
    }

    @Test
    void floorEntryForTimestampIsTheLastEntryWithEveryRecordBeforeItOlder() {
        for (int n : new int[] {1, 2, 3, 5, 16, 17, 40}) {
            OffsetIndex index = index(n);
            assertThat(index.floorEntryForTimestamp(Long.MIN_VALUE)).isEqualTo(-1);
            for (int i = 1; i < n; i++) {
                // a record before entry i has timestamp 100 * i: a search for it starts before entry i
                assertThat(index.floorEntryForTimestamp(100L * i)).as("n=%d, t=%d", n, 100 * i).isEqualTo(i - 1);
                assertThat(index.floorEntryForTimestamp(100L * i + 1)).as("n=%d, t=%d", n, 100 * i + 1).isEqualTo(i);
            }
            assertThat(index.floorEntryForTimestamp(Long.MAX_VALUE)).as("never past the last entry").isEqualTo(n - 1);
        }
    }

    @Test
    void sameEntriesComparesEveryEntryAndItsTimestamp() {
        assertThat(index(5).sameEntries(index(5))).isTrue();
        assertThat(index(5).sameEntries(index(4))).isFalse();
        OffsetIndex other = index(4);
        other.add(40, 24 + 4000, 401);
        assertThat(index(5).sameEntries(other)).as("a different timestamp").isFalse();
        OffsetIndex moved = index(4);
        moved.add(40, 24 + 4001, 400);
        assertThat(index(5).sameEntries(moved)).as("a different position").isFalse();
    }
}
