package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RecordInterceptor} that delegates to several, in order, as spring-kafka's class of the same name does:
 * {@link #intercept} hands each the record the one before it returned and stops at the first {@code null} (the record
 * is skipped); the other methods call every delegate in order. Immutable; called as its delegates are.
 */
public final class CompositeRecordInterceptor implements RecordInterceptor {

    private final List<RecordInterceptor> delegates;

    /** @throws NullPointerException when a delegate is null */
    public CompositeRecordInterceptor(RecordInterceptor... delegates) {
        this.delegates = List.of(Objects.requireNonNull(delegates, "delegates"));
    }

    @Override
    public @Nullable KafkoRecord intercept(KafkoRecord record) {
        KafkoRecord current = record;
        for (RecordInterceptor delegate : delegates) {
            current = delegate.intercept(current);
            if (current == null) {
                return null;
            }
        }
        return current;
    }

    @Override
    public void success(KafkoRecord record) {
        delegates.forEach(d -> d.success(record));
    }

    @Override
    public void failure(KafkoRecord record, Exception exception) {
        delegates.forEach(d -> d.failure(record, exception));
    }

    @Override
    public void afterRecord(KafkoRecord record) {
        delegates.forEach(d -> d.afterRecord(record));
    }

    @Override
    public void setupThreadState() {
        delegates.forEach(ThreadStateProcessor::setupThreadState);
    }

    @Override
    public void clearThreadState() {
        delegates.forEach(ThreadStateProcessor::clearThreadState);
    }
}
