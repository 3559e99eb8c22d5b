package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code EVERY_BATCH} a record is readable only once its fsync returned: a position chosen as "the end"
 * (a seek to the end, to a timestamp past every record, past the end, the start of a {@code LATEST} member)
 * is the readable end, so that a record appended and not yet fsynced is read once it is, not skipped, and a
 * group never commits past it.
 */
class EveryBatchPositionsTest {

    @TempDir
    Path dir;

    @Test
    void seekToEndStopsBeforeARecordNotYetFsynced() throws Exception {
        whileARecordWaitsForItsFsync(g -> g.seekToEnd(), "seekToEnd");
    }

    @Test
    void seekToATimestampPastEveryRecordStopsBeforeARecordNotYetFsynced() throws Exception {
        whileARecordWaitsForItsFsync(g -> g.seekToTimestamp(Long.MAX_VALUE), "seekToTimestamp(MAX)");
    }

    @Test
    void aSeekPastTheEndStopsBeforeARecordNotYetFsynced() throws Exception {
        whileARecordWaitsForItsFsync(g -> g.seek(0, 1_000), "seek(0, 1000)");
    }

    @Test
    void aLatestMemberStartsBeforeARecordNotYetFsynced() throws Exception {
        AppendHold hold = new AppendHold();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(hold).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            CompletableFuture<RecordPosition> sent = CompletableFuture.supplyAsync(
                    () -> k.producer("t").send(null, bytes("x")).join());
            hold.awaitHeld();
            try (dev.kafko.Consumer late = k.groupConsumer("t", "late",
                    ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.LATEST))) {
                try {
                    assertThat(late.poll(Duration.ZERO)).isEmpty();
                    assertThat(late.position(0)).isZero();
                    late.commit();
                    assertThat(late.committed(0)).hasValue(0);
                } finally {
                    hold.release(); // else the close waits for the held append
                }
                assertThat(sent.get().offset()).isZero();
                assertThat(late.poll(Duration.ofSeconds(10))).extracting(KafkoRecord::offset).containsExactly(0L);
            }
        }
    }

    @Test
    void aSeekToTheEndOfOnePartitionStopsBeforeARecordNotYetFsynced() throws Exception {
        whileARecordWaitsForItsFsync(g -> g.seekToEnd(0), "seekToEnd(0)");
    }

    @Test
    void theLagOfAGroupAtTheReadableEndCountsNoRecordNotYetFsynced() throws Exception {
        AppendHold hold = new AppendHold();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(hold).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            try (dev.kafko.Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.poll(Duration.ZERO)).isEmpty();
                g.commit();
                CompletableFuture<RecordPosition> sent = CompletableFuture.supplyAsync(
                        () -> k.producer("t").send(null, bytes("x")).join());
                hold.awaitHeld();
                try {
                    assertThat(k.groupInfo("t", "g").lag()).as("as Kafka's, up to the high watermark")
                            .containsEntry(0, 0L);
                } finally {
                    hold.release();
                }
                sent.get();
                assertThat(k.groupInfo("t", "g").lag()).containsEntry(0, 1L);
            }
        }
    }

    @Test
    void aSeekOfOnePartitionToItsBeginningOrEndLeavesTheOthersWhereTheyAre() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 3; i++) {
                p.sendTo(0, null, bytes("a" + i)).join();
                p.sendTo(1, null, bytes("b" + i)).join();
            }
            try (dev.kafko.Consumer c = k.consumer("t")) {
                c.seek(0, 1);
                c.seek(1, 1);
                c.seekToEnd(0);
                assertThat(c.position(0)).isEqualTo(3);
                assertThat(c.position(1)).isEqualTo(1);
                c.seekToBeginning(1);
                assertThat(c.position(1)).isZero();
                assertThat(c.position(0)).isEqualTo(3);
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.seekToEnd(2))
                        .isInstanceOf(InvalidPartitionException.class);
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.seekToBeginning(-1))
                        .isInstanceOf(InvalidPartitionException.class);
            }
        }
    }

    /** {@code move} runs while record 0 is appended and waits for its fsync: the member must still read it. */
    private void whileARecordWaitsForItsFsync(Consumer<dev.kafko.Consumer> move, String what) throws Exception {
        AppendHold hold = new AppendHold();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(hold).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            try (dev.kafko.Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.poll(Duration.ZERO)).isEmpty();
                CompletableFuture<RecordPosition> sent = CompletableFuture.supplyAsync(
                        () -> k.producer("t").send(null, bytes("x")).join());
                hold.awaitHeld(); // appended, before its fsync
                try {
                    assertThat(sent).isNotDone();
                    assertThat(g.poll(Duration.ZERO)).isEmpty();

                    move.accept(g);

                    assertThat(g.position(0)).as(what).isZero();
                    g.commit();
                    assertThat(g.committed(0)).as("a group never commits past a record not yet fsynced")
                            .hasValue(0);
                } finally {
                    hold.release(); // else the close waits for the held append
                }
                assertThat(sent.get().offset()).isZero();
                assertThat(g.poll(Duration.ofSeconds(10))).as(what).extracting(KafkoRecord::offset)
                        .containsExactly(0L);
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
