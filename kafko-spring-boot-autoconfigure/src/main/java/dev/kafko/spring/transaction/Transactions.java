package dev.kafko.spring.transaction;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Finds the transaction a transactional template's send joins. Internal: used by
 * {@link dev.kafko.spring.core.KafkoTemplate}.
 */
public final class Transactions {

    /**
     * While {@link #stagesOfHeldSends} runs a subscription, the transactions of the stages made on this thread of the
     * sends they hold, one entry per stage.
     */
    private static final ThreadLocal<List<KafkoResourceHolder>> WATCH = new ThreadLocal<>();

    private Transactions() {
    }

    /**
     * Runs {@code subscribe} (the subscription of a reactive value a listener returned) and tells how many stages it
     * made, on this thread, of sends held by a transaction still open once it returned, the listener's own: a
     * {@code Mono.fromFuture(template.send(...))} makes one. Such a value completes only at the commit, which waits for
     * it: the listener adapter refuses it. A transaction the subscription ran and completed itself (an
     * {@code executeInTransaction}, a nested one) wrote its sends already: its stages do not count.
     */
    public static int stagesOfHeldSends(Runnable subscribe) {
        List<KafkoResourceHolder> outer = WATCH.get();
        List<KafkoResourceHolder> made = new ArrayList<>();
        WATCH.set(made);
        try {
            subscribe.run();
        } finally {
            if (outer == null) {
                WATCH.remove();
            } else {
                WATCH.set(outer);
            }
        }
        int open = 0;
        for (KafkoResourceHolder transaction : made) {
            if (transaction.isOpen()) {
                open++;
            }
        }
        return open;
    }

    /** A stage was made of a send {@code transaction}, open on this thread, holds ({@link #stagesOfHeldSends}). */
    static void stageOfHeldSendMade(KafkoResourceHolder transaction) {
        List<KafkoResourceHolder> made = WATCH.get();
        if (made != null) {
            made.add(transaction);
        }
    }

    /**
     * The open transaction bound to this thread under {@code key} (by {@link KafkoTransactionManager}, or by an
     * earlier send in the same transaction of another manager); else, inside another manager's actual transaction, a
     * new one that is written after that commits (a send from its after-commit callbacks: when it completes); else
     * {@code null}, as while a transaction {@linkplain #completing() completes}.
     */
    public static @Nullable KafkoTransaction current(Object key) {
        if (completing()) {
            return null;
        }
        Object bound = TransactionSynchronizationManager.getResource(key);
        if (bound instanceof KafkoResourceHolder holder && holder.isOpen()) {
            return holder;
        }
        if (!inOtherTransaction()) {
            return null;
        }
        if (bound instanceof KafkoResourceHolder) {
            // written already by the transaction's commit; a send from a later afterCommit callback of another
            // synchronization gets records of its own, written when the transaction completes
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
        return !completing() && TransactionSynchronizationManager.getResource(key) instanceof KafkoResourceHolder holder
                && holder.isOpen() || inOtherTransaction();
    }

    /**
     * Whether another manager's transaction runs on this thread and takes synchronizations: not a scope without a
     * transaction ({@code SUPPORTS}, {@code NOT_SUPPORTED}, {@code NEVER}), which a manager synchronizing always
     * synchronizes too.
     */
    private static boolean inOtherTransaction() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Whether a transaction on this thread is completing: its {@code afterCompletion} callbacks run, its
     * synchronizations already cleared, so nothing can join it any more. Spring calls a
     * {@code @TransactionalEventListener} of phase {@code AFTER_COMMIT}, {@code AFTER_ROLLBACK} or
     * {@code AFTER_COMPLETION} there; a send from it is written at once.
     */
    public static boolean completing() {
        return !TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    /** A transaction of its own, for {@code executeInTransaction}, bound to nothing. */
    public static KafkoTransaction local() {
        return new KafkoResourceHolder();
    }
}
