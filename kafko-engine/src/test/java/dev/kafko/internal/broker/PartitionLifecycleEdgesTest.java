package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.FsyncPolicy;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionFailedException;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import dev.kafko.internal.log.CapturedWarnings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The edges of {@link PartitionLifecycle}: what a partition whose log failed reports, to whom, and what it refuses. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PartitionLifecycleEdgesTest {

    @TempDir
    Path dir;

    @Test
    void aPartitionWhoseFsyncFailedIsFailedReportedOnceAndRefusesSendsNamingItsCause() {
        AtomicBoolean failForce = new AtomicBoolean();
        FileIo io = new WrappingFileIo((path, options, real) -> !path.getFileName().toString()
                .endsWith(FileNames.LOG_SUFFIX) ? real : new DelegatingFileChannel(real) {
                    @Override
                    public void force(boolean metaData) throws IOException {
                        if (failForce.get()) {
                            throw new IOException("injected: fsync of " + path);
                        }
                        super.force(metaData);
                    }
                });
        List<String> observed = new CopyOnWriteArrayList<>();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onFailure(String topic, int partition, Throwable cause) {
                observed.add(topic + "-" + partition + ": " + cause.getMessage());
            }
        };
        try (Broker k = Broker.open(dir, KafkoOptions.builder().observer(observer).build(), io)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = k.producer("t");
            p.sendTo(1, null, new byte[] {1}).join();
            Throwable failed;
            List<String> logged;
            try (CapturedWarnings captured = CapturedWarnings.of(PartitionActor.class)) {
                failForce.set(true);
                failed = catchThrowable(() -> p.sendTo(0, null, new byte[] {2}).join());
                failForce.set(false);
                logged = captured.lines();
            }
            assertThat(failed).isInstanceOf(CompletionException.class);
            Throwable cause = failed.getCause();
            // the log's own exception, not wrapped again
            assertThat(cause).isInstanceOf(KafkoStorageException.class);
            assertThat(cause.getMessage()).doesNotStartWith("append of partition").contains("injected: fsync of");
            assertThat(observed).hasSize(1);
            // the log's exception as it is, not wrapped in another naming the partition
            assertThat(observed.get(0)).startsWith("t-0: fsync failed on ").contains("injected: fsync of");
            assertThat(logged).anySatisfy(l -> assertThat(l).startsWith("partition t-0 failed during "));

            List<PartitionInfo> infos = k.topic("t").orElseThrow().partitions();
            assertThat(infos.get(0).state()).isEqualTo(PartitionState.FAILED);
            assertThat(infos.get(0).failure()).isNotNull();
            assertThat(infos.get(1).state()).isEqualTo(PartitionState.RUNNING);
            assertThat(infos.get(1).failure()).isNull();

            Throwable refused = catchThrowable(() -> p.sendTo(0, null, new byte[] {3}).join());
            assertThat(refused).hasCauseInstanceOf(PartitionFailedException.class);
            assertThat(refused.getCause()).hasMessageStartingWith("partition t-0 failed earlier: ")
                    .hasMessageContaining("injected: fsync of");
            // the other partition goes on
            p.sendTo(1, null, new byte[] {4}).join();
        }
    }
}
