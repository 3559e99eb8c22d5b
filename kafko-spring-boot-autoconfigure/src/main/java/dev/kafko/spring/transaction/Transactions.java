package dev.kafko.spring.transaction;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Finds the transaction a transactional template's send joins. Internal: used by
 * {@link dev.kafko.spring.core.KafkoTemplate}.
 */
public final class Transactions {

    private Transactions() {
    }

    /**
     * The transaction bound to this thread under {@code key} (by {@link KafkoTransactionManager}, or by an earlier
     * send in the same transaction of another manager); else, inside another manager's transaction, a new one that
     * is written after that commits; else {@code null}.
     */
    public static @Nullable KafkoTransaction current(Object key) {
        Object bound = TransactionSynchronizationManager.getResource(key);
        if (bound instanceof KafkoResourceHolder holder && holder.isOpen()) {
            return holder;
        }
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return null;
        }
        // inside another manager's transaction; when its records were written already, this is a send from its
        // completion (an AFTER_COMMIT event listener): held anew, and written once the transaction completed
        if (bound != null) {
            TransactionSynchronizationManager.unbindResource(key);
        }
        KafkoResourceHolder holder = new KafkoResourceHolder();
        holder.setSynchronizedWithTransaction(true);
        TransactionSynchronizationManager.bindResource(key, holder);
        TransactionSynchronizationManager.registerSynchronization(new KafkoSynchronization(key, holder));
        return holder;
    }

    /** Whether this thread runs a transaction a send under {@code key} would join. */
    public static boolean active(Object key) {
        return TransactionSynchronizationManager.getResource(key) instanceof KafkoResourceHolder
                || TransactionSynchronizationManager.isSynchronizationActive();
    }

    /** A transaction of its own, for {@code executeInTransaction}, bound to nothing. */
    public static KafkoTransaction local() {
        return new KafkoResourceHolder();
    }
}
