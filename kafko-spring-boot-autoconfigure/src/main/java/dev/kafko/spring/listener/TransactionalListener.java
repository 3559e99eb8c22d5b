package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

/**
 * A member's listener run in a transaction of its container's transaction manager, one per delivery attempt (of a
 * record, or of a batch): the records a transactional template sends from the listener are written when the attempt
 * returns, before the container commits the offsets, and dropped when it throws, before the error handler retries or
 * recovers the record. Interceptors, the record filter and the conversion run inside the transaction. One per member;
 * polling thread only.
 */
final class TransactionalListener implements KafkoMessageListener {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final KafkoMessageListener delegate;
    private final PlatformTransactionManager manager;
    private final String listenerId;

    TransactionalListener(KafkoMessageListener delegate, PlatformTransactionManager manager, String listenerId) {
        this.delegate = delegate;
        this.manager = manager;
        this.listenerId = listenerId;
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment) throws Exception {
        onMessage(records, acknowledgment, 1);
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt)
            throws Exception {
        TransactionStatus status = manager.getTransaction(TransactionDefinition.withDefaults());
        try {
            delegate.onMessage(records, acknowledgment, deliveryAttempt);
        } catch (Exception | Error e) {
            rollback(status, e);
            throw e;
        }
        // a commit that fails (rolling back what it can) fails the attempt, as the listener failing would
        manager.commit(status);
    }

    private void rollback(TransactionStatus status, Throwable failure) {
        try {
            manager.rollback(status);
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError fatal && !(fatal instanceof StackOverflowError)) {
                throw fatal;
            }
            LOG.error("The rollback of listener '{}''s transaction failed after the listener failed", listenerId, e);
            failure.addSuppressed(e);
        }
    }

    @Override
    public @Nullable ConsumerSeekAware seekAware() {
        return delegate.seekAware();
    }

    @Override
    public boolean isBatch() {
        return delegate.isBatch();
    }
}
