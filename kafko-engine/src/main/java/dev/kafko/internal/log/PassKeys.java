package dev.kafko.internal.log;

import dev.kafko.KafkoRecord;

/**
 * Internal: the keys one compaction pass ({@link Compaction#prepare}) looked at, from offset {@code from} (included)
 * to {@code end} (excluded), and what its rewrites keep by them. One compaction's thread.
 */
final class PassKeys {
    final KeyOffsetMap map;
    final long tombstoneLimit;
    final long from;
    long end;

    PassKeys(KeyOffsetMap map, long tombstoneLimit, long from, long end) {
        this.map = map;
        this.tombstoneLimit = tombstoneLimit;
        this.from = from;
        this.end = end;
    }

    boolean expired(KafkoRecord r) {
        return r.value() == null && r.timestamp() < tombstoneLimit;
    }

    /** Whether the rewrite of a segment before {@link #end} keeps {@code r}. */
    boolean kept(KafkoRecord r) {
        byte[] key = r.key();
        if (key == null || r.offset() >= end) {
            return true; // no later record can replace it; not looked at by this pass
        }
        int slot = map.find(key);
        if (slot < 0) {
            // before the pass's keys (from on, every key is in the map): the only record of its key up to end
            return !expired(r);
        }
        return map.offset(slot) == r.offset() && !map.expired(slot);
    }
}
