package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.CapturedWarnings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a group's offsets file is forced: at each commit under {@code EVERY_BATCH}; once per period after a commit
 * under an interval policy, every period that had one (the scheduled force is armed again by the next commit); at
 * a durable close; never when the topic is deleted or the close is not durable ({@code durableClose} false), nor
 * for a group that never read or wrote its offsets. A file let go unforced is closed all the same. Counted on the
 * channels of the {@code offsets} files (with {@code fsyncMetadata} off, so that creating one forces nothing).
 */
class GroupCoordinatorCloseTest {

    @TempDir
    Path dir;

    private final OffsetsFileChannels offsets = new OffsetsFileChannels();
    private final AtomicInteger forces = offsets.forces;
    private final Semaphore forced = offsets.forced;
    /** Channels of offsets files open. */
    private final AtomicInteger openChannels = offsets.openChannels;
    private final FileIo io = offsets.io;

    private Kafko open(boolean durableClose) {
        KafkoOptions options = KafkoOptions.builder().durableClose(durableClose).fsyncMetadata(false).build();
        return BrokerBridge.open(dir, options, io);
    }

    private static TopicConfig fsync(FsyncPolicy policy) {
        return TopicConfig.builder().fsync(policy).build();
    }

    private static Consumer member(Kafko k) {
        Consumer member = k.groupConsumer("t", "g");
        member.poll(Duration.ZERO);
        return member;
    }

    @Test
    void anIntervalPolicyForcesTheOffsetsOncePerPeriodWithACommit() throws Exception {
        try (Kafko k = open(true); CapturedWarnings warnings = CapturedWarnings.of(Scheduler.class)) {
            k.createTopic("t", fsync(FsyncPolicy.interval(Duration.ofMillis(20))));
            Consumer member = member(k);
            member.commit(Map.of(0, 0L));
            assertThat(forced.tryAcquire(10, TimeUnit.SECONDS)).as("the force a period after the commit").isTrue();
            member.commit(Map.of(0, 0L));
            assertThat(forced.tryAcquire(10, TimeUnit.SECONDS)).as("armed again by the next commit").isTrue();
            // the scheduler's one thread ran the first force to its end before the second: it did not fail
            assertThat(warnings.lines()).isEmpty();
            member.close();
        }
        assertThat(forces.get()).as("two periods, then the close").isEqualTo(3);
    }

    @Test
    void aLongIntervalLeavesTheForceToTheClose() {
        try (Kafko k = open(true)) {
            k.createTopic("t", fsync(FsyncPolicy.interval(Duration.ofHours(1))));
            Consumer member = member(k);
            member.commit(Map.of(0, 0L));
            member.commit(Map.of(0, 0L));
            assertThat(forces.get()).isZero();
        }
        assertThat(forces.get()).as("the durable close").isEqualTo(1);
        try (Kafko k = open(true)) {
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 0L));
        }
    }

    @Test
    void everyBatchForcesEachCommit() {
        try (Kafko k = open(true)) {
            k.createTopic("t", fsync(FsyncPolicy.EVERY_BATCH));
            Consumer member = member(k);
            member.commit(Map.of(0, 0L));
            assertThat(forces.get()).isEqualTo(1);
            member.commit(Map.of(0, 0L));
            assertThat(forces.get()).isEqualTo(2);
        }
        assertThat(forces.get()).isEqualTo(3);
    }

    @Test
    void aCloseThatIsNotDurableDoesNotForceTheOffsets() {
        try (Kafko k = open(false)) {
            k.createTopic("t", fsync(FsyncPolicy.NEVER));
            member(k).commit(Map.of(0, 0L));
        }
        assertThat(forces.get()).isZero();
        assertThat(openChannels.get()).isZero();
        try (Kafko k = open(true)) {
            assertThat(k.groupInfo("t", "g").committed()).as("written, though not forced").isEqualTo(Map.of(0, 0L));
        }
    }

    @Test
    void aDeletedTopicsOffsetsAreNotForced() {
        try (Kafko k = open(true)) {
            k.createTopic("t", fsync(FsyncPolicy.NEVER));
            member(k).commit(Map.of(0, 0L));
            k.deleteTopic("t");
            assertThat(forces.get()).isZero();
            assertThat(openChannels.get()).as("the deleted topic's offsets file, let go").isZero();
        }
        assertThat(forces.get()).isZero();
    }

    @Test
    void aDurableCloseForcesTheOffsetsUnderNever() {
        try (Kafko k = open(true)) {
            k.createTopic("t", fsync(FsyncPolicy.NEVER));
            member(k).commit(Map.of(0, 0L));
            assertThat(forces.get()).isZero();
        }
        assertThat(forces.get()).isEqualTo(1);
    }

    /** A group whose offsets were never read nor written has no file to close, as its topic closes or is deleted. */
    @Test
    void aGroupThatNeverUsedItsOffsetsClosesQuietly() {
        try (Kafko k = open(true)) {
            k.createTopic("t");
            k.createTopic("u");
            k.groupConsumer("t", "g");
            k.groupConsumer("u", "g");
            k.deleteTopic("u");
        }
        try (Kafko k = open(true)) {
            assertThat(k.groups("t")).isEmpty();
        }
        assertThat(forces.get()).isZero();
    }
}
