package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Claims of the public javadoc that no other test pins. */
class JavadocContractTest {

    @TempDir
    Path dir;

    @Test
    void afterCloseGroupLagProducerRoutingAndACommitOfOffsetsThrowKafkoClosedException() {
        Kafko k = Kafko.open(dir);
        k.createTopic("t", TopicConfig.builder().partitions(2).build());
        Producer p = k.producer("t");
        Consumer member = k.groupConsumer("t", "g");
        k.close();
        assertThatThrownBy(() -> k.groupLag("t", "g", 0)).isInstanceOf(KafkoClosedException.class);
        assertThatThrownBy(p::partitionCount).isInstanceOf(KafkoClosedException.class);
        assertThatThrownBy(() -> p.partitionFor(bytes("k"))).isInstanceOf(KafkoClosedException.class);
        assertThatThrownBy(() -> member.commit(Map.of(0, 0L))).isInstanceOf(KafkoClosedException.class);
        // arguments are checked first
        assertThatThrownBy(() -> member.commit(Map.of(0, -1L))).isInstanceOf(OffsetOutOfRangeException.class);
        member.close();
    }

    @Test
    void anAnonymousCommitOfOffsetsChecksTheOffsetsNotThePartitionsAndCommitsNothing() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer anon = k.consumer("t")) {
                anon.commit(Map.of(7, 3L)); // no such partition: a no-op all the same
                assertThatThrownBy(() -> anon.commit(Map.of(0, -1L))).isInstanceOf(OffsetOutOfRangeException.class);
                anon.commit(Map.of(0, 1L));
                assertThat(anon.committed(0)).isEmpty();
            }
            assertThat(k.groups("t")).isEmpty();
        }
    }
}
