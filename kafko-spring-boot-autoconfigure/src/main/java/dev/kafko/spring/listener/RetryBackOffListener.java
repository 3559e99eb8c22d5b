package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A record listener whose container delivers no record before the epoch millisecond of its
 * {@link KafkoHeaders#RETRY_BACKOFF_TIMESTAMP} header: the listener of a {@code @RetryableTopic}'s retry topic. The
 * container's member seeks back to such a record and holds its partition back until then (paused on its consumer,
 * not a pause of the container), delivering the due records of its poll's other partitions and polling them on as
 * usual; its first poll after that time delivers the record, and those behind it in its partition. A record without
 * the header, or with one it cannot read, is delivered at once.
 */
public final class RetryBackOffListener implements KafkoMessageListener {

    private final KafkoMessageListener delegate;

    /** @throws IllegalArgumentException when {@code delegate} is a batch listener */
    public RetryBackOffListener(KafkoMessageListener delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        if (delegate.isBatch()) {
            throw new IllegalArgumentException("a retry topic's listener takes one record at a time");
        }
    }

    /** Milliseconds until {@code record} may be delivered at {@code nowMillis}; 0 or less: now. */
    static long backOffLeft(KafkoRecord record, long nowMillis) {
        byte[] value = record.headers().lastValue(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP);
        if (value == null) {
            return 0;
        }
        try {
            return Long.parseLong(new String(value, StandardCharsets.UTF_8)) - nowMillis;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment) throws Exception {
        delegate.onMessage(records, acknowledgment);
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt)
            throws Exception {
        delegate.onMessage(records, acknowledgment, deliveryAttempt);
    }

    @Override
    public @Nullable ConsumerSeekAware seekAware() {
        return delegate.seekAware();
    }

    @Override
    public boolean isBatch() {
        return false;
    }
}
