package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's offsets under a topic whose fsync interval a config change shortened: forced within the new period
 * after a commit, not at the force the old period scheduled. Counted on the channels of the {@code offsets} files.
 */
class GroupForceAfterConfigChangeTest {

    @TempDir
    Path dir;

    private final Semaphore forced = new Semaphore(0);
    private final FileIo io = new WrappingFileIo((path, options, real) -> {
        if (!path.getFileName().toString().equals("offsets")) {
            return real;
        }
        return new DelegatingFileChannel(real) {
            @Override
            public void force(boolean metaData) throws IOException {
                super.force(metaData);
                forced.release();
            }
        };
    });

    @Test
    void aShorterIntervalForcesTheNextCommitWithinItsPeriod() throws InterruptedException {
        KafkoOptions options = KafkoOptions.builder().fsyncMetadata(false).build();
        try (Kafko k = BrokerBridge.open(dir, options, io)) {
            Topic topic = k.createTopic("t", TopicConfig.builder()
                    .fsync(FsyncPolicy.interval(Duration.ofHours(1))).build());
            Consumer member = k.groupConsumer("t", "g");
            member.poll(Duration.ZERO);
            member.commit(Map.of(0, 0L)); // schedules the hourly force

            topic.alterConfig(topic.config().toBuilder().fsync(FsyncPolicy.interval(Duration.ofMillis(20))).build());
            member.commit(Map.of(0, 0L));

            // it waited for the hourly force scheduled before the change
            assertThat(forced.tryAcquire(10, TimeUnit.SECONDS)).as("the commit forced within the new period").isTrue();
            member.close();
        }
    }
}
