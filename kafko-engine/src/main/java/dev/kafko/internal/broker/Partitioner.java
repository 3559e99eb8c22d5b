package dev.kafko.internal.broker;

/**
 * Internal: key routing exactly as Apache Kafka's default partitioner for keyed records:
 * {@code toPositive(murmur2(key)) % partitions}. Stateless; any thread.
 */
final class Partitioner {

    private static final int SEED = 0x9747b28c;
    private static final int M = 0x5bd1e995;
    private static final int R = 24;

    private Partitioner() {
    }

    /** The partition of a keyed record. */
    static int partitionFor(byte[] key, int partitions) {
        return toPositive(murmur2(key)) % partitions;
    }

    /** Kafka's {@code Utils.toPositive}: clears the sign bit (not {@code Math.abs}, which fails on MIN_VALUE). */
    static int toPositive(int number) {
        return number & 0x7fffffff;
    }

    /** The 32-bit murmur2 hash of {@code data}, bit for bit the one of Kafka's {@code Utils.murmur2}. */
    static int murmur2(byte[] data) {
        int length = data.length;
        int h = SEED ^ length;
        int length4 = length >>> 2;
        for (int i = 0; i < length4; i++) {
            int i4 = i << 2;
            int k = (data[i4] & 0xff) | ((data[i4 + 1] & 0xff) << 8) | ((data[i4 + 2] & 0xff) << 16)
                    | ((data[i4 + 3] & 0xff) << 24);
            k *= M;
            k ^= k >>> R;
            k *= M;
            h *= M;
            h ^= k;
        }
        int tail = length & ~3;
        switch (length & 3) {
            case 3:
                h ^= (data[tail + 2] & 0xff) << 16;
                // fall through
            case 2:
                h ^= (data[tail + 1] & 0xff) << 8;
                // fall through
            case 1:
                h ^= data[tail] & 0xff;
                h *= M;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }
}
