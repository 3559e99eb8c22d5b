package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash at every step of {@code Kafko.deleteGroup}: before and after each file force, directory fsync, rename and
 * delete it makes, and once more after it returned, the directory is imaged twice, as a kill -9 leaves it (a copy of
 * the files) and as a power loss does ({@link PowerLossDisk}: what was fsynced). Each image must open with the group
 * whole (its last commits, exactly) or without it ({@code groups} does not list it, and a new member of its name
 * starts by the reset policy); the images after the call returned without it; another group untouched in all.
 */
class GroupDeletionCrashTest {

    private static final Map<Integer, Long> LAST = Map.of(0, 4L, 1, 2L);
    private static final Map<Integer, Long> OTHER = Map.of(0, 1L);

    @TempDir
    Path tmp;

    private record Image(Path dir, String what, boolean afterTheCall) {
    }

    @Test
    void aCrashAtAnyStepOfAGroupDeletionLeavesTheWholeGroupOrNone() throws Exception {
        Path live = tmp.resolve("live");
        SteppingDisk stepper = new SteppingDisk(new PowerLossDisk(live));
        List<Image> images = new ArrayList<>();
        try (Kafko kafko = BrokerBridge.open(live, KafkoOptions.DEFAULTS, new HookedFileIo(stepper))) {
            kafko.createTopic("t", TopicConfig.builder().partitions(2).fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = kafko.producer("t");
            for (int i = 0; i < 6; i++) {
                p.sendTo(0, null, new byte[] {(byte) i}).join();
                p.sendTo(1, null, new byte[] {(byte) i}).join();
            }
            commit(kafko, "g", Map.of(0, 3L, 1, 1L));
            commit(kafko, "g", LAST); // two entries per partition: the last ones are what must survive
            commit(kafko, "other", OTHER);
            stepper.armed = () -> images.addAll(image(stepper, live, "step " + images.size() / 2, false));
            try {
                assertThat(kafko.deleteGroup("t", "g")).isTrue();
            } finally {
                stepper.armed = null;
            }
            images.addAll(image(stepper, live, "after the call", true));
        }
        int whole = 0;
        int none = 0;
        for (Image image : images) {
            if (check(image)) {
                whole++;
            } else {
                none++;
            }
        }
        System.out.printf("group deletion crashes: %d images, %d with the group whole, %d without it%n",
                images.size(), whole, none);
        assertThat(whole).as("images taken before the deletion's commit point").isPositive();
        assertThat(none).as("images taken after it").isPositive();
        try (Kafko kafko = Kafko.open(live)) {
            assertThat(kafko.groups("t")).containsExactly("other");
        }
    }

    /** Whether the image holds the group (whole); asserts the image holds it whole or not at all. */
    private static boolean check(Image image) {
        String as = image.what() + " (" + image.dir().getFileName() + ")";
        try (Kafko kafko = Kafko.open(image.dir())) {
            assertThat(kafko.groupInfo("t", "other").committed()).as("%s: the other group", as).isEqualTo(OTHER);
            Set<String> groups = kafko.groups("t");
            Map<Integer, Long> committed = kafko.groupInfo("t", "g").committed();
            if (groups.contains("g")) {
                assertThat(image.afterTheCall()).as("%s: the group is back after the call returned", as).isFalse();
                assertThat(committed).as("%s: the group, whole", as).isEqualTo(LAST);
                return true;
            }
            assertThat(committed).as("%s: no group, no commit", as).isEmpty();
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                assertThat(c.position(0)).as("%s: a new member starts by the reset policy", as).isZero();
                assertThat(c.position(1)).as("%s: a new member starts by the reset policy", as).isZero();
            }
            return false;
        }
    }

    private static void commit(Kafko kafko, String group, Map<Integer, Long> offsets) {
        try (Consumer c = kafko.groupConsumer("t", group, ConsumerOptions.DEFAULTS.withPartitions(offsets.keySet()))) {
            c.commit(offsets);
        }
    }

    private List<Image> image(SteppingDisk stepper, Path live, String what, boolean afterTheCall) {
        try {
            Path kill = Files.createTempDirectory(tmp, "kill-");
            SteppingDisk.copyLive(live, kill);
            Path power = tmp.resolve(kill.getFileName().toString().replace("kill-", "power-"));
            stepper.disk.crashInto(power);
            return List.of(new Image(kill, "kill -9 at " + what, afterTheCall),
                    new Image(power, "power loss at " + what, afterTheCall));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
