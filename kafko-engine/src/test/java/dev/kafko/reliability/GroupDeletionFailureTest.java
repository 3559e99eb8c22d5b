package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Kafko.deleteGroup} at the file-system seam: an unlink that fails changes nothing (the group, its commits and
 * its members go on, and a later deletion succeeds); a directory fsync that fails after the unlink leaves the group
 * deleted in this instance and says that the deletion may not be durable; the unlinks and fsyncs come in the order
 * that makes the deletion durable, the open file is let go; two deletions at once delete the group once.
 */
class GroupDeletionFailureTest {

    @TempDir
    Path dir;

    private static KafkoObserver deletions(ConcurrentLinkedQueue<String> events) {
        return new KafkoObserver() {
            @Override
            public void onGroupDeleted(String topic, String group) {
                events.add("deleted " + topic + "/" + group);
            }
        };
    }

    private static void fill(Kafko k) {
        Producer p = k.producer("t");
        for (int i = 0; i < 5; i++) {
            p.sendTo(0, null, new byte[] {(byte) i}).join();
            p.sendTo(1, null, new byte[] {(byte) i}).join();
        }
    }

    private Path offsetsFile() {
        return dir.resolve("t").resolve("groups").resolve("g").resolve("offsets");
    }

    @Test
    void anUnlinkThatFailsChangesNothingAndTheGroupGoesOn() throws Exception {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        boolean[] failUnlink = {false};
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeDelete(Path path) throws IOException {
                if (failUnlink[0] && path.endsWith(Path.of("groups", "g", "offsets"))) {
                    throw new IOException("injected unlink failure");
                }
            }
        });
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().observer(deletions(events)).build(), io)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k);
            Consumer fixed = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)));
            fixed.commit(Map.of(0, 3L));

            failUnlink[0] = true;
            assertThatThrownBy(() -> k.deleteGroup("t", "g")).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("delete the offsets of group 'g' of topic 't'")
                    .hasMessageContaining("injected unlink failure");
            failUnlink[0] = false;

            assertThat(events).as("no deletion to tell of").isEmpty();
            assertThat(k.groups("t")).containsExactly("g");
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 3L));
            assertThat(fixed.committed(0)).as("the same group, not one made anew").hasValue(3);
            fixed.commit(Map.of(1, 2L));
            assertThat(BrokerBridge.openOffsets(FileIo.SYSTEM, offsetsFile(), 2)).as("its file goes on")
                    .containsExactly(3, 2);
            try (Consumer member = k.groupConsumer("t", "g")) {
                assertThat(member.position(0)).as("a member starts at the group's commits").isEqualTo(3);
                assertThat(member.position(1)).isEqualTo(2);
            }

            assertThat(k.deleteGroup("t", "g")).isTrue();
            assertThat(events).containsExactly("deleted t/g");
            assertThat(k.groups("t")).isEmpty();
            assertThat(offsetsFile()).doesNotExist();
            fixed.close();
        }
    }

    @Test
    void aDeletionThatCannotBeMadeDurableIsDoneInThisInstanceAndSaysSo() throws Exception {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        boolean[] failSync = {false};
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void afterFsyncDirectory(Path d) throws IOException {
                if (failSync[0] && d.endsWith(Path.of("groups", "g"))) {
                    throw new IOException("injected fsync failure");
                }
            }
        });
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().observer(deletions(events)).build(), io)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k);
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.seek(0, 3);
                c.commit(Map.of(0, 3L));
            }

            failSync[0] = true;
            assertThatThrownBy(() -> k.deleteGroup("t", "g")).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("the offsets of group 'g' of topic 't' were deleted, but the deletion could"
                            + " not be made durable")
                    .hasMessageContaining("injected fsync failure");
            failSync[0] = false;

            assertThat(events).as("the deletion was done: told").containsExactly("deleted t/g");
            assertThat(k.groups("t")).isEmpty();
            assertThat(offsetsFile()).doesNotExist();
            assertThat(k.groupInfo("t", "g").committed()).isEmpty();
            assertThat(k.deleteGroup("t", "g")).as("gone: nothing to delete again").isFalse();
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThat(c.position(0)).as("a new member starts by the reset policy").isZero();
            }
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groups("t")).isEmpty();
        }
        assertThat(Files.exists(dir.resolve("t"))).isTrue();
    }

    /**
     * The order that makes the deletion durable: an offsets file of the older layout goes first, durably, so that a
     * crash never leaves it to be read in place of the current file; then the current file, the commit point, and its
     * directory's fsync; then the group's directory, with a compaction's leftover temp file, and its parent's fsync.
     * Without {@code fsyncMetadata} nothing is fsynced; a directory that holds a file kafko never writes stays, the
     * group deleted all the same.
     */
    @Test
    void theDeletionIsMadeDurableInOrderAndTheGroupsDirectoryGoesWithItsLeftovers() throws Exception {
        Path groups = dir.resolve("t").resolve("groups");
        Path legacy = groups.resolve("g.offsets");
        Path tmp = groups.resolve("g").resolve("offsets.tmp");
        List<Path> closed = new CopyOnWriteArrayList<>();
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void afterClose(Path path) {
                closed.add(path);
            }
        });
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k);
            commit(k, "g");
            Files.copy(offsetsFile(), legacy); // an older version's file beside the current one
            Files.writeString(tmp, "cut"); // a compaction a crash cut
            int from = io.calls().size();
            assertThat(k.deleteGroup("t", "g")).isTrue();
            assertThat(deletesAndSyncs(io, from)).containsExactly("delete " + legacy, "fsyncDirectory " + groups,
                    "delete " + offsetsFile(), "fsyncDirectory " + offsetsFile().getParent(), "delete " + tmp,
                    "delete " + offsetsFile().getParent(), "fsyncDirectory " + groups);
            assertThat(groups.resolve("g")).doesNotExist();
            assertThat(legacy).doesNotExist();
            assertThat(closed).as("the group's open offsets file is let go, its descriptor released")
                    .contains(offsetsFile());
        }
        HookedFileIo unsynced = new HookedFileIo();
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().fsyncMetadata(false).build(), unsynced)) {
            commit(k, "g");
            Path foreign = groups.resolve("g").resolve("notes.txt");
            Files.writeString(foreign, "an operator's");
            int from = unsynced.calls().size();
            assertThat(k.deleteGroup("t", "g")).isTrue();
            assertThat(deletesAndSyncs(unsynced, from)).containsExactly("delete " + offsetsFile(), "delete " + tmp,
                    "delete " + offsetsFile().getParent());
            assertThat(k.groups("t")).isEmpty();
            assertThat(foreign).as("not kafko's: left, with its directory").exists();
            assertThat(offsetsFile()).doesNotExist();
        }
    }

    private static void commit(Kafko k, String group) {
        try (Consumer c = k.groupConsumer("t", group, ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)))) {
            c.commit(Map.of(0, 3L));
        }
    }

    private static List<String> deletesAndSyncs(HookedFileIo io, int from) {
        List<String> calls = io.calls();
        return calls.subList(from, calls.size()).stream()
                .filter(c -> c.startsWith("delete ") || c.startsWith("fsyncDirectory ")).toList();
    }

    /**
     * Two deletions of one group that both found its coordinator before either began (held back by a commit's write in
     * flight, which holds the group's lock): one deletes it, the other finds it deleted and reports false; the observer
     * is told once.
     */
    @Test
    void ofTwoDeletionsOfOneGroupAtOnceOneDeletesItAndTheOtherReportsFalse() throws Exception {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        CountDownLatch inWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        boolean[] hold = {false};
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeWrite(Path path, long bytes) {
                if (hold[0] && path.endsWith(Path.of("groups", "g", "offsets"))) {
                    hold[0] = false;
                    inWrite.countDown();
                    await(release);
                }
            }
        });
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().observer(deletions(events)).build(), io)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k);
            try (Consumer fixed = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)))) {
                fixed.commit(Map.of(0, 1L));
                hold[0] = true;
                CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> fixed.commit(Map.of(0, 2L)),
                        runnable -> new Thread(runnable, "committer").start());
                assertThat(inWrite.await(10, TimeUnit.SECONDS)).isTrue();
                List<Thread> deleters = new ArrayList<>();
                ConcurrentLinkedQueue<Object> outcomes = new ConcurrentLinkedQueue<>();
                for (int i = 0; i < 2; i++) {
                    Thread t = new Thread(() -> {
                        try {
                            outcomes.add(k.deleteGroup("t", "g"));
                        } catch (RuntimeException e) {
                            outcomes.add(e);
                        }
                    }, "deleter-" + i);
                    deleters.add(t);
                    t.start();
                }
                // both wait for the group's lock, the coordinator in hand
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!deleters.stream().allMatch(t -> t.getState() == Thread.State.WAITING)) {
                    assertThat(System.nanoTime()).as("both deleters wait for the commit's lock").isLessThan(deadline);
                    Thread.onSpinWait();
                }
                release.countDown();
                commit.get(10, TimeUnit.SECONDS);
                for (Thread t : deleters) {
                    t.join(TimeUnit.SECONDS.toMillis(10));
                    assertThat(t.isAlive()).isFalse();
                }
                assertThat(outcomes).containsExactlyInAnyOrder(true, false);
                assertThat(events).containsExactly("deleted t/g");
                assertThat(k.groups("t")).isEmpty();
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
