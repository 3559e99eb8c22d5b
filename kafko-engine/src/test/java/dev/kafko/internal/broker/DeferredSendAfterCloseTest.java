package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.OutgoingRecord;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A send made {@link DeferredSends#DEPTH} callbacks deep that reaches its partition only after the instance
 * closed (its topic check passed just before the close): nothing looks at deferred sends any more, and the
 * close drained the partition before the send was queued, so the send must not be left for its thread's
 * outermost call, which a callback waiting for the record (a latch) never reaches.
 */
class DeferredSendAfterCloseTest {

    @Test
    void aSendQueuedDeepAfterTheCloseIsRefusedWithoutItsThreadReturning(@TempDir Path dir) throws Exception {
        Kafko kafko = Kafko.open(dir);
        kafko.createTopic("t");
        PartitionActor actor = ((TopicImpl) kafko.topic("t").orElseThrow()).actor(0);
        kafko.producer("t").send(null, new byte[1]).join();
        kafko.close();

        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.NESTED] += DeferredSends.DEPTH; // as inside a chain of 16 callbacks
        SendRequest late = new SendRequest(new OutgoingRecord(null, new byte[1], Headers.empty(),
                OutgoingRecord.NO_TIMESTAMP), 16);
        try {
            actor.submit(late);
            // the chain's thread goes on waiting for the record (a latch its callback counts down), never
            // blocking on the future itself (which would drain the partition), nor returning
            for (int i = 0; i < 200 && !late.isDone(); i++) {
                Thread.sleep(10);
            }
            assertThat(late.isDone()).as("the late send's future, 2 s after it was queued").isTrue();
        } finally {
            marks[ThreadMarks.NESTED] -= DeferredSends.DEPTH;
            DeferredSends.runIfOutermost(marks);
        }
        assertThat(late.isCompletedExceptionally()).isTrue();
        try {
            late.join();
        } catch (CompletionException e) {
            assertThat(e).hasCauseInstanceOf(KafkoClosedException.class);
        }
    }
}
