package dev.kafko.spring.support;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import org.jspecify.annotations.Nullable;

/** Records made in memory for tests of conversion: topic {@code t}, partition 0, offset 7, timestamp 1, no key. */
public final class TestRecords {

    private TestRecords() {
    }

    /** A record of that value ({@code null}: a tombstone) and those headers. */
    public static KafkoRecord record(byte @Nullable [] value, Headers headers) {
        return new KafkoRecord() {
            @Override
            public String topic() {
                return "t";
            }

            @Override
            public int partition() {
                return 0;
            }

            @Override
            public long offset() {
                return 7;
            }

            @Override
            public long timestamp() {
                return 1L;
            }

            @Override
            public byte @Nullable [] key() {
                return null;
            }

            @Override
            public byte @Nullable [] value() {
                return value;
            }

            @Override
            public Headers headers() {
                return headers;
            }
        };
    }
}
