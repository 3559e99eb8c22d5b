/**
 * Transactions of the {@link dev.kafko.spring.core.KafkoTemplate}: the records a transactional template sends inside
 * a transaction are held until it commits, then written, one atomic batch per partition; a rollback drops them.
 * {@link dev.kafko.spring.transaction.KafkoTransactionManager} is spring-kafka's {@code KafkaTransactionManager}
 * for kafko.
 */
@NullMarked
package dev.kafko.spring.transaction;

import org.jspecify.annotations.NullMarked;
