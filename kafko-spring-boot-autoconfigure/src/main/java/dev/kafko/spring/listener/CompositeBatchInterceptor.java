package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BatchInterceptor} that delegates to several, in order, as spring-kafka's class of the same name does:
 * {@link #intercept} hands each the records the one before it returned and stops at the first {@code null} or empty list
 * (the batch is skipped, as either skips it; a delegate is never handed an empty batch, which no interceptor is
 * otherwise given); the other methods call every delegate in order. Immutable; called as its delegates are.
 */
public final class CompositeBatchInterceptor implements BatchInterceptor {

    private final List<BatchInterceptor> delegates;

    /** @throws NullPointerException when a delegate is null */
    public CompositeBatchInterceptor(BatchInterceptor... delegates) {
        this.delegates = List.of(Objects.requireNonNull(delegates, "delegates"));
    }

    @Override
    public @Nullable List<KafkoRecord> intercept(List<KafkoRecord> records) {
        List<KafkoRecord> current = records;
        for (BatchInterceptor delegate : delegates) {
            current = delegate.intercept(current);
            if (current == null || current.isEmpty()) {
                return current;
            }
        }
        return current;
    }

    @Override
    public void success(List<KafkoRecord> records) {
        delegates.forEach(d -> d.success(records));
    }

    @Override
    public void failure(List<KafkoRecord> records, Exception exception) {
        delegates.forEach(d -> d.failure(records, exception));
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
