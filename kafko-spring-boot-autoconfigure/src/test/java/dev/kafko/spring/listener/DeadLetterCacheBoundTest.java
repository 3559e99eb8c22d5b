package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordPosition;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.LogBackend;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A pattern over topics that come and go (a topic per job), each with a dead letter: what the recoverer remembers
 * of the dead-letter topics it ensured stays bounded (it kept one entry per topic ever dead-lettered).
 */
class DeadLetterCacheBoundTest {

    @Test
    void theDeadLetterTopicsRememberedStayBoundedUnderTopicChurn() throws Exception {
        LogBackend backend = mock(LogBackend.class, withSettings().stubOnly());
        BackendProducer producer = mock(BackendProducer.class, withSettings().stubOnly());
        when(backend.producer(anyString())).thenReturn(producer);
        when(backend.partitionCount(anyString())).thenReturn(1);
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(0, 0)));
        DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(backend);
        int topics = DeadLetterPublishingRecoverer.MAX_REMEMBERED + 200;
        for (int i = 0; i < topics; i++) {
            KafkoRecord r = mock(KafkoRecord.class, withSettings().stubOnly());
            when(r.partition()).thenReturn(0);
            when(r.headers()).thenReturn(Headers.empty());
            when(r.topic()).thenReturn("job-" + i);
            recoverer.recover(r, new IllegalStateException("boom"), DeadLetterRecovererDecisionsTest.INVOCATION);
        }
        int size = recoverer.remembered();
        assertThat(size).isLessThanOrEqualTo(DeadLetterPublishingRecoverer.MAX_REMEMBERED);
    }
}
