package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A caller may change or reuse its arrays (key, value, header values) as soon as a send returns, as with
 * Kafka's producer: a send that lingers, or waits behind another thread's append, is written after the
 * call, and it wrote whatever the caller had put in the arrays by then (19,855 of 20,000 pipelined
 * records held a later record's bytes).
 */
class BufferReuseTest {

    static final int RECORDS = 5_000;

    @TempDir
    Path dir;

    @Test
    void pipelinedSendsKeepTheBytesTheyWereGivenWithEveryCodec() {
        for (Compression codec : Compression.values()) {
            try (Kafko k = Kafko.open(dir.resolve(codec.name()))) {
                k.createTopic("t", TopicConfig.builder().partitions(3).compression(codec).build());
                Producer p = k.producer("t");
                byte[] key = new byte[8];
                byte[] value = new byte[200];
                byte[] header = new byte[4];
                List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
                boolean lingered = false;
                for (int i = 0; i < RECORDS; i++) {
                    fill(i, key, value, header);
                    CompletableFuture<RecordPosition> f = switch (i % 3) {
                        case 0 -> p.send(key, value);
                        case 1 -> p.send(key, value, Headers.of("h", header));
                        default -> p.sendTo(i % 3, OutgoingRecord.of(key, value, Headers.of("h", header)));
                    };
                    lingered |= !f.isDone();
                    sent.add(f);
                }
                fill(-1, key, value, header);
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
                assertThat(lingered).as("some sends were written after their call returned").isTrue();

                assertEveryRecordHoldsItsOwnBytes(k, codec);
            }
        }
    }

    @Test
    void batchesKeepTheBytesTheyWereGivenWhenTheirCallersReuseTheirArrays() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            Producer p = k.producer("t");
            // two threads, so that batches wait behind the other thread's appends
            CompletableFuture<Void> first = Fixtures.onNewThread(() -> sendBatches(p, 0));
            CompletableFuture<Void> second = Fixtures.onNewThread(() -> sendBatches(p, RECORDS / 2));
            first.join();
            second.join();

            assertEveryRecordHoldsItsOwnBytes(k, Compression.NONE);
        }
    }

    /** Sends records {@code from} to {@code from + RECORDS / 2} in batches of 10, reusing 10 sets of arrays. */
    private static void sendBatches(Producer p, int from) {
        byte[][] keys = new byte[10][8];
        byte[][] values = new byte[10][200];
        byte[][] headers = new byte[10][4];
        List<CompletableFuture<List<RecordPosition>>> sent = new ArrayList<>();
        for (int b = 0; b < RECORDS / 20; b++) {
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int j = 0; j < 10; j++) {
                fill(from + b * 10 + j, keys[j], values[j], headers[j]);
                batch.add(OutgoingRecord.of(keys[j], values[j], Headers.of("h", headers[j])));
            }
            sent.add(b % 2 == 0 ? p.sendBatch(batch) : p.sendBatchTo(b % 3, batch));
        }
        for (int j = 0; j < 10; j++) {
            fill(-1, keys[j], values[j], headers[j]);
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
    }

    /** Every record read back has the key, value and header of one index, each index once. */
    private static void assertEveryRecordHoldsItsOwnBytes(Kafko k, Compression codec) {
        boolean[] seen = new boolean[RECORDS];
        int read = 0;
        try (Consumer c = k.consumer("t")) {
            while (read < RECORDS) {
                for (KafkoRecord r : c.poll(Duration.ofSeconds(5))) {
                    int i = index(r.value());
                    byte[] key = new byte[8];
                    byte[] value = new byte[200];
                    byte[] header = new byte[4];
                    fill(i, key, value, header);
                    assertThat(r.value()).as("%s value at %d-%d", codec, r.partition(), r.offset()).isEqualTo(value);
                    assertThat(r.key()).as("%s key of record %d", codec, i).isEqualTo(key);
                    Header h = r.headers().lastHeader("h");
                    if (h != null) {
                        assertThat(h.value()).as("%s header of record %d", codec, i).isEqualTo(header);
                    }
                    assertThat(seen[i]).as("record %d read twice", i).isFalse();
                    seen[i] = true;
                    read++;
                }
            }
        }
    }

    private static void fill(int i, byte[] key, byte[] value, byte[] header) {
        byte[] index = {(byte) (i >> 24), (byte) (i >> 16), (byte) (i >> 8), (byte) i};
        Arrays.fill(key, (byte) i);
        Arrays.fill(value, (byte) (i * 7));
        System.arraycopy(index, 0, value, 0, 4);
        System.arraycopy(index, 0, header, 0, 4);
    }

    private static int index(byte[] value) {
        return (value[0] & 0xff) << 24 | (value[1] & 0xff) << 16 | (value[2] & 0xff) << 8 | (value[3] & 0xff);
    }
}
