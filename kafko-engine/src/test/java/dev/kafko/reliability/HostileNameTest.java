package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.internal.broker.BrokerBridge;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile topic and group names are refused with {@link InvalidNameException} before any file-system
 * call: the instance runs on a {@link HookedFileIo} that records every call, and the data directory's
 * parent is listed before and after. Kafka's rule ({@code [A-Za-z0-9._-]}, 1 to 249) is the decision:
 * space is refused; {@code CON} and a trailing dot are legal names on Linux and are accepted.
 */
class HostileNameTest {

    static final List<String> HOSTILE = List.of("../x", "..", ".", "", "a/b", "/abs", "a\\b", "a\u0000b", "x ", " x",
            "x\n", "é", "日本", "a:b", "a*b", "a".repeat(250), "b".repeat(300), "\uD800", "a\u202Eb");
    static final List<String> LEGAL_ODD = List.of("CON", "x.", "...", "-x", "_", "a".repeat(249));

    @TempDir
    Path tmp;

    @Test
    void hostileNamesAreRefusedBeforeAnyFileSystemCall() throws IOException {
        Path data = tmp.resolve("data");
        HookedFileIo io = new HookedFileIo();
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            kafko.createTopic("ok");
            Set<String> before = tree(tmp);
            int callsBefore = io.calls().size();
            int refused = 0;
            for (String name : HOSTILE) {
                refused += refuses(() -> kafko.createTopic(name));
                refused += refuses(() -> kafko.deleteTopic(name));
                // lookups of a topic that cannot exist: refused as unknown or invalid, without touching a file
                refused += refusesLookup(() -> kafko.producer(name));
                refused += refusesLookup(() -> kafko.consumer(name));
                refused += refuses(() -> kafko.groupConsumer("ok", name));
                refused += refuses(() -> kafko.groupInfo("ok", name));
            }
            assertThatThrownBy(() -> kafko.createTopic(null)).isInstanceOf(NullPointerException.class);
            assertThat(io.calls().subList(callsBefore, io.calls().size())).as("file-system calls").isEmpty();
            assertThat(tree(tmp)).as("files below the data directory's parent").isEqualTo(before);
            System.out.printf("hostile names: %d names x 6 calls, %d refused, 0 file-system calls%n", HOSTILE.size(),
                    refused);
            assertThat(refused).isEqualTo(HOSTILE.size() * 6);
        }
    }

    @Test
    void oddButLegalTopicNamesAreAcceptedAndStayInsideTheDataDirectory() throws IOException {
        Path data = tmp.resolve("data");
        try (Kafko kafko = Kafko.open(data)) {
            for (String name : LEGAL_ODD) {
                kafko.createTopic(name);
                kafko.producer(name).send(null, name.getBytes(java.nio.charset.StandardCharsets.UTF_8)).join();
            }
        }
        try (Kafko kafko = Kafko.open(data)) {
            assertThat(kafko.topics()).containsAll(LEGAL_ODD);
            try (Stream<Path> s = Files.list(tmp)) {
                assertThat(s.map(p -> p.getFileName().toString())).containsExactly("data");
            }
        }
    }

    /**
     * Bug B3 (docs/RELIABILITY.md), fixed: a 249-character group name made a 257-byte offsets file
     * name. Each group now has a directory named after it holding {@code offsets}, so the longest
     * legal name (249, Kafka's rule) commits and resumes after a reopen; one more is refused.
     */
    @Test
    void longestLegalGroupNameCanCommit() {
        String longest = "g".repeat(249);
        try (Kafko kafko = Kafko.open(tmp.resolve("data"))) {
            kafko.createTopic("t");
            kafko.producer("t").send(null, new byte[1]).join();
            try (Consumer c = kafko.groupConsumer("t", longest)) {
                List<KafkoRecord> got = c.poll(Duration.ofSeconds(2));
                assertThat(got).hasSize(1);
                c.commit();
                assertThat(c.committed(0)).hasValue(1);
            }
            assertThatThrownBy(() -> kafko.groupConsumer("t", "g".repeat(250)))
                    .isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("249");
        }
        try (Kafko kafko = Kafko.open(tmp.resolve("data")); Consumer c = kafko.groupConsumer("t", longest)) {
            assertThat(kafko.groups("t")).containsExactly(longest);
            assertThat(c.poll(Duration.ofMillis(10))).isEmpty();
            assertThat(c.position(0)).isEqualTo(1);
        }
    }

    private static int refuses(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOf(InvalidNameException.class);
        return 1;
    }

    private static int refusesLookup(Runnable call) {
        assertThatThrownBy(call::run)
                .isInstanceOfAny(InvalidNameException.class, dev.kafko.UnknownTopicException.class);
        return 1;
    }

    private static Set<String> tree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            Set<String> out = new TreeSet<>();
            s.forEach(p -> out.add(root.relativize(p).toString()));
            return out;
        }
    }
}
