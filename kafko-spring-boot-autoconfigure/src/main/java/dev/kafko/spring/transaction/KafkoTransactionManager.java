package dev.kafko.spring.transaction;

import dev.kafko.spring.core.LogBackend;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.InvalidIsolationLevelException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.SmartTransactionObject;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * spring-kafka's {@code KafkaTransactionManager} for kafko: a {@code @Transactional} method (or a
 * {@code TransactionTemplate}) run by it holds the records a transactional {@link dev.kafko.spring.core.KafkoTemplate}
 * on the same {@link LogBackend} sends, writes them when it commits (each partition's records all or none, the commit
 * returning once they are written) and drops them when it rolls back. A transaction of its own nested inside
 * ({@code REQUIRES_NEW}) holds its own records; the outer one's stay held while it runs. Like spring-kafka's, it
 * takes no isolation level and registers no transaction synchronizations.
 */
public class KafkoTransactionManager extends AbstractPlatformTransactionManager implements ResourceTransactionManager {

    private static final long serialVersionUID = 1L;

    private final transient LogBackend backend;

    public KafkoTransactionManager(LogBackend backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
        setTransactionSynchronization(SYNCHRONIZATION_NEVER);
    }

    /** The backend whose template sends this manager's transactions hold. */
    @Override
    public LogBackend getResourceFactory() {
        return backend;
    }

    @Override
    protected Object doGetTransaction() {
        TransactionObject tx = new TransactionObject();
        tx.holder = (KafkoResourceHolder) TransactionSynchronizationManager.getResource(backend);
        return tx;
    }

    @Override
    protected boolean isExistingTransaction(Object transaction) {
        return ((TransactionObject) transaction).holder != null;
    }

    @Override
    protected void doBegin(Object transaction, TransactionDefinition definition) {
        if (definition.getIsolationLevel() != TransactionDefinition.ISOLATION_DEFAULT) {
            throw new InvalidIsolationLevelException("kafko's transactions take no isolation level");
        }
        KafkoResourceHolder holder = new KafkoResourceHolder();
        holder.setSynchronizedWithTransaction(true);
        int timeout = determineTimeout(definition);
        if (timeout != TransactionDefinition.TIMEOUT_DEFAULT) {
            holder.setTimeoutInSeconds(timeout);
        }
        TransactionSynchronizationManager.bindResource(backend, holder);
        ((TransactionObject) transaction).holder = holder;
    }

    /**
     * Unbinds the transaction's records, unless a {@link KafkoSynchronization} did already (the records joined
     * another manager's transaction, whose synchronizations are suspended first); null then, and that synchronization
     * binds them again.
     */
    @Override
    protected @Nullable Object doSuspend(Object transaction) {
        ((TransactionObject) transaction).holder = null;
        return TransactionSynchronizationManager.unbindResourceIfPossible(backend);
    }

    @Override
    protected void doResume(@Nullable Object transaction, Object suspendedResources) {
        TransactionSynchronizationManager.bindResource(backend, suspendedResources);
    }

    @Override
    protected void doCommit(DefaultTransactionStatus status) {
        holder(status).commit();
    }

    @Override
    protected void doRollback(DefaultTransactionStatus status) {
        holder(status).rollback();
    }

    @Override
    protected void doSetRollbackOnly(DefaultTransactionStatus status) {
        holder(status).setRollbackOnly();
    }

    @Override
    protected void doCleanupAfterCompletion(Object transaction) {
        TransactionObject tx = (TransactionObject) transaction;
        TransactionSynchronizationManager.unbindResourceIfPossible(backend);
        KafkoResourceHolder holder = tx.holder;
        if (holder != null) {
            holder.clear();
        }
    }

    private static KafkoResourceHolder holder(DefaultTransactionStatus status) {
        KafkoResourceHolder holder = ((TransactionObject) status.getTransaction()).holder;
        if (holder == null) {
            throw new IllegalStateException("No kafko transaction is bound to this status");
        }
        return holder;
    }

    /** The transaction object: the holder of the transaction's records, when one is bound. */
    private static final class TransactionObject implements SmartTransactionObject {

        @Nullable KafkoResourceHolder holder;

        @Override
        public boolean isRollbackOnly() {
            KafkoResourceHolder h = holder;
            return h != null && h.isRollbackOnly();
        }

        @Override
        public void flush() {
        }
    }
}
