package dev.kafko.tryout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay of an aggregate's history by time and by offset: {@code seekToTimestamp} moves to the first record by offset
 * whose timestamp is at or after the target (timestamps need not grow with offsets, as imported or corrected events'
 * explicit ones do not), and a {@code seek} into the middle of a batch frame starts at that very record; checked
 * against a brute-force scan of what was sent, over many small segments, for every codec, before and after a reopen.
 */
class ReplayByTimestampTryoutTest {

    @TempDir
    Path dir;

    @Test
    void seekToTimestampAndSeekAgreeWithABruteForceScanForEveryCodec() {
        for (Compression codec : Compression.values()) {
            Random rnd = new Random(42);
            Path d = dir.resolve(codec.name());
            List<Long> ts = new ArrayList<>();
            try (Kafko k = Kafko.open(d)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(8 * 1024).indexIntervalBytes(512).compression(codec).build());
                Producer p = k.producer("t");
                long base = 1_000_000;
                for (int i = 0; i < 400; i++) {
                    int n = 1 + rnd.nextInt(rnd.nextBoolean() ? 1 : 20);
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int j = 0; j < n; j++) {
                        long t = base + (rnd.nextInt(10) == 0 ? rnd.nextInt(100_000) - 50_000 : 0);
                        base += rnd.nextInt(50);
                        byte[] v = new byte[rnd.nextInt(300)];
                        rnd.nextBytes(v);
                        batch.add(OutgoingRecord.of(null, v, Headers.empty(), t));
                        ts.add(t);
                    }
                    if (n == 1 && rnd.nextBoolean()) {
                        p.sendTo(0, batch.get(0)).join();
                    } else {
                        p.sendBatchTo(0, batch).join();
                    }
                }
                check(k, ts, rnd, codec + " live");
            }
            try (Kafko k = Kafko.open(d)) {
                check(k, ts, rnd, codec + " reopened");
            }
        }
    }

    private static void check(Kafko k, List<Long> ts, Random rnd, String what) {
        try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withMaxPollRecords(3))) {
            for (int q = 0; q < 300; q++) {
                long target = 1_000_000 + rnd.nextInt(400 * 20 * 25) - 60_000;
                long expect = ts.size();
                for (int i = 0; i < ts.size(); i++) {
                    if (ts.get(i) >= target) {
                        expect = i;
                        break;
                    }
                }
                c.seekToTimestamp(Math.max(0, target));
                assertThat(c.position(0)).as(what + " seekToTimestamp " + target).isEqualTo(expect);
                long off = rnd.nextInt(ts.size());
                c.seek(0, off);
                List<KafkoRecord> got = c.poll(Duration.ofSeconds(1));
                assertThat(got).as(what + " seek " + off).isNotEmpty();
                assertThat(got.get(0).offset()).as(what + " seek " + off).isEqualTo(off);
                assertThat(got.get(0).timestamp()).isEqualTo(ts.get((int) off));
            }
        }
    }
}
