package dev.kafko.spring.transaction;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Joins a transaction's records to another manager's transaction (a JDBC or JPA one): they are written after it
 * committed, and dropped when it rolled back, as spring-kafka does with a transactional template there.
 */
final class KafkoSynchronization implements TransactionSynchronization {

    private final Object key;
    private final KafkoResourceHolder holder;

    KafkoSynchronization(Object key, KafkoResourceHolder holder) {
        this.key = key;
        this.holder = holder;
    }

    @Override
    public void suspend() {
        TransactionSynchronizationManager.unbindResourceIfPossible(key);
    }

    @Override
    public void resume() {
        if (!TransactionSynchronizationManager.hasResource(key)) {
            TransactionSynchronizationManager.bindResource(key, holder);
        }
    }

    @Override
    public void afterCommit() {
        holder.commit();
    }

    @Override
    public void afterCompletion(int status) {
        TransactionSynchronizationManager.unbindResourceIfPossible(key);
        holder.rollback();
    }
}
