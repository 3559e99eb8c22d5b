package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.internal.log.AppendSizes;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ProducerSizeBoundTest {

    private static final long SEED = 20261129L;

    /** The bound lets the producer skip the exact size only when it proves the record fits. */
    @Test
    void sizeBoundIsNeverBelowTheExactSizeAndCloseAboveIt() {
        System.out.println("ProducerSizeBoundTest seed " + SEED);
        Random random = new Random(SEED);
        String[] keyChars = {"a", "\u00e9", "\u20ac", "\ud83d\ude00"};
        for (int i = 0; i < 10_000; i++) {
            Headers headers = Headers.empty();
            int headerCount = random.nextInt(4);
            for (int h = 0; h < headerCount; h++) {
                StringBuilder key = new StringBuilder();
                for (int c = random.nextInt(6); c > 0; c--) {
                    key.append(keyChars[random.nextInt(keyChars.length)]);
                }
                headers = headers.with(key.toString(), random.nextBoolean() ? null : new byte[random.nextInt(300)]);
            }
            OutgoingRecord r = OutgoingRecord.of(random.nextBoolean() ? null : new byte[random.nextInt(200)],
                    random.nextInt(10) == 0 ? null : new byte[random.nextInt(1 << (1 + random.nextInt(20)))], headers);
            long exact = AppendSizes.encodedSize(r);
            assertThat(ProducerImpl.sizeBound(r)).as("record %d: %s", i, r)
                    .isBetween(exact, exact + 15 + 20L * headerCount);
        }
    }

    @Test
    void sizeBoundOfAPlainRecordIsAtMostADozenBytesOver() {
        OutgoingRecord r = OutgoingRecord.of(null, new byte[256]);
        assertThat(ProducerImpl.sizeBound(r) - AppendSizes.encodedSize(r)).isBetween(0L, 12L);
    }
}
