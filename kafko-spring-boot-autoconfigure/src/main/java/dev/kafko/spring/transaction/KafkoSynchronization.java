package dev.kafko.spring.transaction;

import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Joins a transaction's records to another manager's transaction (a JDBC or JPA one): they are written after it
 * committed, and dropped when it rolled back, as spring-kafka does with a transactional template there. Records
 * sent from a later after-commit callback are written when it completes.
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

    /**
     * Writes the records, unless a {@link KafkoTransactionManager} scope that joined them was marked rollback-only: they
     * are dropped then, and the caller told, as Spring tells of a transaction marked so.
     *
     * @throws UnexpectedRollbackException when the records were dropped so
     */
    @Override
    public void afterCommit() {
        if (holder.isRollbackOnly()) {
            holder.rollback();
            throw new UnexpectedRollbackException("A KafkoTransactionManager scope that joined the records of this"
                    + " transaction was marked rollback-only: they were dropped, though the transaction committed");
        }
        holder.commit();
    }

    /**
     * Unbinds the records (unless others were bound since) and, should they still be held, writes them when the
     * transaction committed, or drops them: the records sent from another synchronization's {@code afterCommit},
     * which joined it after its {@code afterCommit} calls were made. (A send from an {@code afterCompletion}, an
     * {@code AFTER_COMMIT} event listener's, joins nothing: see {@link Transactions#completing()}.)
     */
    @Override
    public void afterCompletion(int status) {
        if (TransactionSynchronizationManager.getResource(key) == holder) {
            TransactionSynchronizationManager.unbindResource(key);
        }
        if (status == STATUS_COMMITTED && holder.isOpen() && !holder.isRollbackOnly()) {
            holder.commit();
        } else {
            holder.rollback();
        }
    }
}
