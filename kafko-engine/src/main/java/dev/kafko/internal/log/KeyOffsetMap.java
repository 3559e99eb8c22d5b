package dev.kafko.internal.log;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Internal: the latest offset of each key one compaction pass looked at, in at most a given number of bytes (Kafka's
 * cleaner has its dedupe buffer for this). Unlike Kafka's, which keeps a digest of each key, the keys are kept whole
 * and compared byte by byte, so two keys never share an entry (a shared entry would remove the records of one for the
 * other's). The table is open-addressed over parallel arrays and the keys are stored back to back in one array: 31
 * to 57 bytes per key besides the key's own (27 to 53 of the table, which doubles at three quarters full, and 4 of
 * its length); both grow by doubling while they fit the budget. Not thread-safe: one compaction's thread.
 */
final class KeyOffsetMap {

    /** What {@link #put} returns for a key it did not hold. */
    static final int NEW = -1;
    /** What {@link #put} returns for a new key that does not fit in the budget (nothing was stored). */
    static final int FULL = -2;

    /** The bytes of one slot: its key's position, the key's hash, the offset, the segment and tombstone mark. */
    static final int SLOT_BYTES = 4 + 4 + 8 + 4;
    private static final int KEY_LENGTH_BYTES = 4;
    private static final int MIN_SLOTS = 16;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;

    private final long budget;
    /** Per slot: the position of its key in {@link #keys} plus one; 0 for an empty slot. */
    private int[] keyAt;
    private int[] hashes;
    private long[] offsets;
    /** Per slot: the index of the segment of its offset, shifted left once, with the expired-tombstone bit. */
    private int[] marks;
    private int mask;
    private int size;
    /** Each key as its length (4 bytes) and its bytes, back to back. */
    private byte[] keys = new byte[0];
    private int keysUsed;

    /** A map of at most {@code budget} bytes, beyond its first key (which is always taken). */
    KeyOffsetMap(long budget) {
        this.budget = budget;
        allocate(MIN_SLOTS);
    }

    /**
     * Notes that {@code key}'s latest record seen is at {@code offset}, in the segment of index {@code segment} (at
     * most {@code Integer.MAX_VALUE >> 1}), a tombstone past its retention if {@code expired}. Returns the segment of
     * the record it replaces, {@link #NEW} for a key not held before, or {@link #FULL} when the key is new and does
     * not fit.
     */
    int put(byte[] key, long offset, int segment, boolean expired) {
        int hash = hash(key);
        int slot = slot(key, hash);
        if (keyAt[slot] != 0) {
            int previous = marks[slot] >>> 1;
            offsets[slot] = offset;
            marks[slot] = segment << 1 | (expired ? 1 : 0);
            return previous;
        }
        if (!room(key.length)) {
            return FULL;
        }
        if (size + 1 > keyAt.length - (keyAt.length >>> 2)) {
            allocate(keyAt.length << 1);
            slot = slot(key, hash);
        }
        INTS.set(keys, keysUsed, key.length);
        System.arraycopy(key, 0, keys, keysUsed + KEY_LENGTH_BYTES, key.length);
        keyAt[slot] = keysUsed + 1;
        keysUsed += KEY_LENGTH_BYTES + key.length;
        hashes[slot] = hash;
        offsets[slot] = offset;
        marks[slot] = segment << 1 | (expired ? 1 : 0);
        size++;
        return NEW;
    }

    /** The slot of {@code key}, or -1 when it is not held. */
    int find(byte[] key) {
        int slot = slot(key, hash(key));
        return keyAt[slot] != 0 ? slot : -1;
    }

    /** The offset of the key at {@code slot} ({@link #find}). */
    long offset(int slot) {
        return offsets[slot];
    }

    /** Whether the latest record of the key at {@code slot} is a tombstone past its retention. */
    boolean expired(int slot) {
        return (marks[slot] & 1) != 0;
    }

    /** Marks in {@code losing} the segment of every latest record that is a tombstone past its retention. */
    void markExpired(boolean[] losing) {
        for (int s = 0; s < keyAt.length; s++) {
            if (keyAt[s] != 0 && (marks[s] & 1) != 0) {
                losing[marks[s] >>> 1] = true;
            }
        }
    }

    /** The keys held. */
    int size() {
        return size;
    }

    /** The bytes the map's arrays take now. */
    long bytes() {
        return (long) keyAt.length * SLOT_BYTES + keys.length;
    }

    /** The slot holding {@code key}, or the empty slot where it goes. */
    private int slot(byte[] key, int hash) {
        for (int s = hash & mask; ; s = (s + 1) & mask) {
            int at = keyAt[s];
            if (at == 0) {
                return s;
            }
            if (hashes[s] == hash && (int) INTS.get(keys, at - 1) == key.length
                    && Arrays.equals(keys, at - 1 + KEY_LENGTH_BYTES, at - 1 + KEY_LENGTH_BYTES + key.length,
                            key, 0, key.length)) {
                return s;
            }
        }
    }

    /**
     * Makes room in {@link #keys} for a key of {@code length} bytes, if the arrays then fit the budget (the table
     * counted at its next size when this key would make it grow); always for the first key.
     */
    private boolean room(int length) {
        long tableBytes = (long) (size + 1 > keyAt.length - (keyAt.length >>> 2) ? keyAt.length << 1 : keyAt.length)
                * SLOT_BYTES;
        long needed = (long) keysUsed + KEY_LENGTH_BYTES + length;
        if (needed > Integer.MAX_VALUE - 8) {
            return false;
        }
        if (size > 0 && tableBytes + Math.max(needed, keys.length) > budget) {
            return false;
        }
        if (needed > keys.length) {
            long grown = Math.max(needed, Math.min((long) keys.length << 1, Math.max(budget - tableBytes, needed)));
            keys = Arrays.copyOf(keys, (int) Math.min(grown, Integer.MAX_VALUE - 8));
        }
        return true;
    }

    private void allocate(int slots) {
        int[] oldAt = keyAt;
        int[] oldHashes = hashes;
        long[] oldOffsets = offsets;
        int[] oldMarks = marks;
        keyAt = new int[slots];
        hashes = new int[slots];
        offsets = new long[slots];
        marks = new int[slots];
        mask = slots - 1;
        if (oldAt == null) {
            return;
        }
        for (int o = 0; o < oldAt.length; o++) {
            if (oldAt[o] != 0) {
                int s = oldHashes[o] & mask;
                while (keyAt[s] != 0) {
                    s = (s + 1) & mask;
                }
                keyAt[s] = oldAt[o];
                hashes[s] = oldHashes[o];
                offsets[s] = oldOffsets[o];
                marks[s] = oldMarks[o];
            }
        }
    }

    /** A hash of the key's bytes, eight at a time, well mixed in its low bits (the table's index). */
    static int hash(byte[] key) {
        long h = key.length * MULTIPLIER;
        int i = 0;
        for (; i + 8 <= key.length; i += 8) {
            h = Long.rotateLeft(h ^ (long) LONGS.get(key, i) * MULTIPLIER, 29) * MULTIPLIER;
        }
        long tail = 0;
        for (int shift = 0; i < key.length; i++, shift += 8) {
            tail |= (key[i] & 0xffL) << shift;
        }
        h = (h ^ tail * MULTIPLIER) * MULTIPLIER;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return (int) h;
    }
}
