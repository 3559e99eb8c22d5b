package dev.kafko.model;

/** Apache Kafka's Utils.murmur2 / default partitioner, written independently for the model. */
final class Murmur2 {
    private Murmur2() {
    }

    static int hash(byte[] data) {
        int length = data.length;
        final int m = 0x5bd1e995;
        final int r = 24;
        int h = 0x9747b28c ^ length;
        int length4 = length / 4;
        for (int i = 0; i < length4; i++) {
            int i4 = i * 4;
            int k = (data[i4] & 0xff) + ((data[i4 + 1] & 0xff) << 8) + ((data[i4 + 2] & 0xff) << 16)
                    + ((data[i4 + 3] & 0xff) << 24);
            k *= m;
            k ^= k >>> r;
            k *= m;
            h *= m;
            h ^= k;
        }
        switch (length % 4) {
            case 3:
                h ^= (data[(length & ~3) + 2] & 0xff) << 16;
            case 2:
                h ^= (data[(length & ~3) + 1] & 0xff) << 8;
            case 1:
                h ^= data[length & ~3] & 0xff;
                h *= m;
            default:
        }
        h ^= h >>> 13;
        h *= m;
        h ^= h >>> 15;
        return h;
    }

    static int partition(byte[] key, int n) {
        return (hash(key) & 0x7fffffff) % n;
    }
}
