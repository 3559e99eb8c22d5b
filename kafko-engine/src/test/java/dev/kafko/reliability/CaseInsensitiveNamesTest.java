package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic and group names that differ only by case ({@code Orders} and {@code orders}: distinct in Kafka's rule) on a
 * file system that does not tell names apart by case, as macOS's APFS and Windows' NTFS by default, or a Linux
 * directory with case folding. There both names reach one directory: the create of the second took the first
 * topic's directory for a leftover and removed it when it held no record yet (the first topic's later records were
 * acknowledged, then lost at the next open, its config with them), or refused with advice to reopen; two groups
 * shared one offsets file (a new group started at the other's commits, skipping records it never read, and each
 * commit overwrote the other's). Both are now refused, naming both names.
 *
 * <p>Most cases run on any file system through a {@link FileIo} that looks names up as a case-folding file system
 * does (this machine's kernel may have no case folding); {@link #onARealCaseFoldingFileSystem} mounts one (a tmpfs
 * or an ext4 image with {@code casefold}) and is skipped with a message where that cannot be done.
 */
class CaseInsensitiveNamesTest {

    @TempDir
    Path tmp;

    private static final Duration POLL = Duration.ofMillis(500);

    @Test
    void aTopicDifferingOnlyByCaseIsRefusedAndTheFirstKeepsItsRecords() {
        Path dir = tmp.resolve("data");
        try (Kafko k = openFolding(dir)) {
            k.createTopic("Orders"); // no record yet: the directory looked like a leftover of a create
            assertThatThrownBy(() -> k.createTopic("orders"))
                    .isInstanceOf(TopicExistsException.class)
                    .hasMessageContaining("'orders'").hasMessageContaining("'Orders'").hasMessageContaining("case");
            assertThat(k.topics()).containsExactly("Orders");
            k.producer("Orders").send(null, bytes("A")).join();
            assertThatThrownBy(() -> k.createTopic("ORDERS")).isInstanceOf(TopicExistsException.class);
        }
        try (Kafko k = openFolding(dir)) {
            assertThat(k.topics()).containsExactly("Orders");
            assertThatThrownBy(() -> k.createTopic("orders")).isInstanceOf(TopicExistsException.class)
                    .hasMessageContaining("'Orders'");
            k.producer("Orders").send(null, bytes("B")).join();
        }
        try (Kafko k = openFolding(dir)) {
            assertThat(values(k, "Orders")).containsExactly("A", "B");
        }
    }

    @Test
    void aGroupDifferingOnlyByCaseIsRefusedWhetherItsTwinCommittedOrIsOnlyLive() {
        Path dir = tmp.resolve("data");
        try (Kafko k = openFolding(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 10; i++) {
                k.producer("t").send(null, bytes("r" + i)).join();
            }
            try (Consumer g = k.groupConsumer("t", "G")) {
                assertThat(g.poll(POLL)).hasSize(10);
                g.commit();
            }
            assertThatThrownBy(() -> k.groupConsumer("t", "g"))
                    .isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("'g'").hasMessageContaining("'G'").hasMessageContaining("case");
            try (Consumer live = k.groupConsumer("t", "Live")) { // a member, no commit: no offsets file yet
                assertThatThrownBy(() -> k.groupConsumer("t", "LIVE")).isInstanceOf(InvalidNameException.class)
                        .hasMessageContaining("'Live'");
            }
        }
        try (Kafko k = openFolding(dir)) {
            assertThatThrownBy(() -> k.groupConsumer("t", "g")).isInstanceOf(InvalidNameException.class);
            try (Consumer g = k.groupConsumer("t", "G")) {
                assertThat(g.position(0)).isEqualTo(10);
            }
        }
    }

    /**
     * {@code deleteGroup} of a name differing only by case from a known group never deletes that group in its place
     * (here, where the lookups fold case but the files do not, it finds no such group; on a real case-folding file
     * system it is refused as {@code groupInfo} is), and once the known group is deleted its name is free: its case
     * twin is no longer refused (the twin's directory and its folded name went with it).
     */
    @Test
    void aGroupsCaseTwinIsNotDeletedInItsPlaceAndTheNameIsFreeOnceTheGroupIsDeleted() {
        Path dir = tmp.resolve("data");
        try (Kafko k = openFolding(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 4; i++) {
                k.producer("t").send(null, bytes("r" + i)).join();
            }
            try (Consumer g = k.groupConsumer("t", "G")) {
                assertThat(g.poll(POLL)).hasSize(4);
                g.commit();
            }
            assertThat(k.deleteGroup("t", "g")).isFalse();
            assertThat(k.groupInfo("t", "G").committed()).containsEntry(0, 4L);
            assertThatThrownBy(() -> k.groupConsumer("t", "g")).isInstanceOf(InvalidNameException.class);

            assertThat(k.deleteGroup("t", "G")).isTrue();

            try (Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.position(0)).as("the twin's name, free now, starts by the reset policy").isZero();
                g.commit();
            }
            assertThatThrownBy(() -> k.groupConsumer("t", "G")).as("and is the known group now")
                    .isInstanceOf(InvalidNameException.class).hasMessageContaining("'g'");
        }
    }

    /**
     * Commits kept in the older layout, {@code groups/<group>.offsets}: the open moves each to
     * {@code groups/<group>/offsets} before any group can be used (and leaves the old file only beside that
     * directory), so a group differing from such a one only by case meets its directory and is refused as a twin
     * of today's layout is, the old group keeping its commits.
     */
    @Test
    void aGroupDifferingOnlyByCaseFromOneOfTheOlderLayoutIsRefused() throws IOException {
        Path dir = tmp.resolve("data");
        try (Kafko k = openFolding(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 10; i++) {
                k.producer("t").send(null, bytes("r" + i)).join();
            }
            try (Consumer g = k.groupConsumer("t", "G")) {
                assertThat(g.poll(POLL)).hasSize(10);
                g.commit();
            }
        }
        Path file = FileNames.groupOffsetsFile(dir.resolve("t"), "G");
        Path legacy = FileNames.legacyGroupOffsetsFile(dir.resolve("t"), "G");
        Files.move(file, legacy);
        Files.delete(file.getParent());
        try (Kafko k = openFolding(dir)) {
            assertThat(legacy).as("moved by the open").doesNotExist();
            assertThatThrownBy(() -> k.groupConsumer("t", "g")).isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("'g'").hasMessageContaining("'G'").hasMessageContaining("case");
        }
        Files.copy(file, legacy); // both layouts: the open reads the directory's file and leaves the old one
        try (Kafko k = openFolding(dir)) {
            assertThat(legacy).exists();
            assertThatThrownBy(() -> k.groupConsumer("t", "g")).isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("'G'");
            try (Consumer g = k.groupConsumer("t", "G")) {
                assertThat(g.position(0)).isEqualTo(10);
            }
        }
    }

    /**
     * B139's note: a topic deleted between its lookup and the twin check's listing of its groups directory (for a
     * group with commits on disk not used yet since the open) reported the listing's failure as a
     * {@link KafkoStorageException}; the topic is gone, and that is what every other call on it says. A listing
     * that fails while the topic exists is still an I/O error.
     */
    @Test
    void aTopicDeletedUnderAGroupsTwinCheckIsUnknownWhileAFailedListingOfALiveOneIsAnIoError() throws Exception {
        Path dir = tmp.resolve("data");
        try (Kafko k = Kafko.open(dir)) {
            for (String t : List.of("t", "u", "v")) {
                k.createTopic(t);
                k.producer(t).send(null, bytes("A")).join();
                try (Consumer g = k.groupConsumer(t, "g")) {
                    assertThat(g.poll(POLL)).hasSize(1);
                    g.commit();
                }
            }
        }
        AtomicReference<@Nullable Kafko> opened = new AtomicReference<>();
        AtomicReference<@Nullable String> deleteBeforeListing = new AtomicReference<>();
        AtomicBoolean failListing = new AtomicBoolean();
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeListing(Path path) throws IOException {
                String topic = deleteBeforeListing.getAndSet(null);
                if (topic != null) {
                    // another thread's deletion, run to its end while this check waits to list
                    Thread deleter = new Thread(() -> opened.get().deleteTopic(topic));
                    deleter.start();
                    try {
                        deleter.join();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
                if (failListing.get()) {
                    throw new IOException("injected listing failure of " + path.getParent());
                }
            }
        });
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            opened.set(k);
            deleteBeforeListing.set("t");
            assertThatThrownBy(() -> k.groupConsumer("t", "g")).isInstanceOf(UnknownTopicException.class)
                    .hasMessageContaining("'t'");
            deleteBeforeListing.set("u");
            assertThatThrownBy(() -> k.groupInfo("u", "g")).isInstanceOf(UnknownTopicException.class)
                    .hasMessageContaining("'u'");
            assertThat(k.topics()).containsExactly("v");
            failListing.set(true);
            assertThatThrownBy(() -> k.groupConsumer("v", "g")).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("injected");
            failListing.set(false);
            try (Consumer g = k.groupConsumer("v", "g")) {
                assertThat(g.position(0)).isEqualTo(1);
            }
        }
    }

    @Test
    void whereTheFileSystemTellsCaseApartBothNamesStayDistinctAsInKafka() {
        try (Kafko k = Kafko.open(tmp.resolve("data"))) {
            k.createTopic("Orders");
            k.createTopic("orders");
            k.producer("Orders").send(null, bytes("A")).join();
            k.producer("orders").send(null, bytes("a")).join();
            assertThat(values(k, "Orders")).containsExactly("A");
            assertThat(values(k, "orders")).containsExactly("a");
            try (Consumer g = k.groupConsumer("Orders", "G")) {
                g.poll(POLL);
                g.commit();
            }
            try (Consumer g = k.groupConsumer("Orders", "g")) {
                assertThat(g.position(0)).isZero();
            }
            k.deleteTopic("orders");
            assertThat(values(k, "Orders")).containsExactly("A");
        }
    }

    @Test
    void onARealCaseFoldingFileSystem() throws Exception {
        Path mount = Files.createDirectories(tmp.resolve("mnt"));
        Path image = tmp.resolve("casefold.img");
        String why = mountCaseFolding(mount, image);
        Assumptions.assumeTrue(why == null, "no case-folding file system here (" + why + "); skipped");
        try {
            Path dir = mount.resolve("data");
            Files.createDirectories(dir);
            Assumptions.assumeTrue(Files.exists(mount.resolve("DATA")), "the mount does not fold case; skipped");
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("Orders");
                assertThatThrownBy(() -> k.createTopic("orders")).isInstanceOf(TopicExistsException.class);
                k.producer("Orders").send(null, bytes("A")).join();
                try (Consumer g = k.groupConsumer("Orders", "G")) {
                    g.poll(POLL);
                    g.commit();
                }
                assertThatThrownBy(() -> k.groupConsumer("Orders", "g")).isInstanceOf(InvalidNameException.class);
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topics()).containsExactly("Orders");
                assertThat(values(k, "Orders")).containsExactly("A");
            }
        } finally {
            unmount(mount, image);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private static Kafko openFolding(Path dir) {
        return BrokerBridge.open(dir, KafkoOptions.DEFAULTS, new CaseFoldingLookups());
    }

    private static List<String> values(Kafko k, String topic) {
        List<String> out = new ArrayList<>();
        try (Consumer c = k.consumer(topic)) {
            List<KafkoRecord> rs;
            while (!(rs = c.poll(POLL)).isEmpty()) {
                rs.forEach(r -> out.add(new String(r.value(), StandardCharsets.UTF_8)));
            }
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Null when {@code mount} now holds a case-folding file system, else why not. */
    private static @Nullable String mountCaseFolding(Path mount, Path image) throws Exception {
        String tmpfs = Commands.run("mount", "-t", "tmpfs", "-o", "size=64m,casefold", "tmpfs", mount.toString());
        if (tmpfs == null) {
            return null;
        }
        String mkfs = Commands.run("mkfs.ext4", "-q", "-F", "-O", "casefold", image.toString(), "300M");
        if (mkfs != null) {
            return "tmpfs: " + tmpfs + "; mkfs.ext4 -O casefold: " + mkfs;
        }
        String loop = Commands.run("mount", "-o", "loop", image.toString(), mount.toString());
        if (loop != null) {
            return "tmpfs: " + tmpfs + "; ext4 casefold image: " + loop;
        }
        String chattr = Commands.run("chattr", "+F", mount.toString());
        if (chattr != null) {
            unmount(mount, image);
            return "chattr +F: " + chattr;
        }
        return null;
    }

    private static void unmount(Path mount, Path image) throws Exception {
        // lazy: segment mappings released only by the garbage collector may still pin the mount (a loop device
        // mounted with -o loop is detached when its last user goes)
        Commands.run("umount", "-l", mount.toString());
        Files.deleteIfExists(image);
    }

    /**
     * The real file system, but names are looked up as a case-folding one looks them up: an entry listed as
     * {@code Orders} is what {@code orders} reaches. Only that lookup is imitated (the files stay apart here).
     */
    private static final class CaseFoldingLookups extends WrappingFileIo {

        CaseFoldingLookups() {
            super((path, options, real) -> real);
        }

        @Override
        public @Nullable String heldUnderAnotherName(Path path) throws IOException {
            if (!Files.isDirectory(path.getParent())) {
                return null;
            }
            String listed = FileIo.listedAlike(path);
            return path.getFileName().toString().equals(listed) ? null : listed;
        }
    }
}
