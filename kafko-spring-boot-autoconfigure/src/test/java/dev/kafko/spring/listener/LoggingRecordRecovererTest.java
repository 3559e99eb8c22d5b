package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import ch.qos.logback.classic.Level;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.messaging.converter.MessageConversionException;

class LoggingRecordRecovererTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(LoggingRecordRecoverer.class);

    @Test
    void aReplayOfRecordsThatNoLongerConvertLogsOneLineEachAndTheStackTraceOnceAMinutePerKind() {
        LoggingRecordRecoverer recoverer = new LoggingRecordRecoverer();
        Exception unreadable = new IllegalStateException("listener failed",
                new MessageConversionException("kafko_type header names shop.v1.Gone"));
        for (int offset = 0; offset < 100; offset++) {
            recoverer.recover(record(offset), unreadable, invocation("replay"));
        }
        recoverer.recover(record(100), new IllegalArgumentException("another kind"), invocation("replay"));
        recoverer.recover(record(101), unreadable, invocation("other-listener"));

        assertThat(log.events()).hasSize(102).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR));
        assertThat(log.events()).filteredOn(e -> e.getThrowableProxy() != null).hasSize(3);
        assertThat(log.events().get(1).getFormattedMessage()).contains("Listener 'replay' gave up on t-0@1",
                "listener failed", "caused by", "shop.v1.Gone", "stack trace logged with an earlier one");
    }

    private static KafkoRecord record(long offset) {
        KafkoRecord record = mock(KafkoRecord.class);
        when(record.topic()).thenReturn("t");
        when(record.offset()).thenReturn(offset);
        return record;
    }

    private static FailedInvocation invocation(String listenerId) {
        FailedInvocation invocation = mock(FailedInvocation.class);
        when(invocation.listenerId()).thenReturn(listenerId);
        return invocation;
    }
}
