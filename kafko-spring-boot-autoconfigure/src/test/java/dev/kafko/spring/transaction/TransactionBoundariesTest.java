package dev.kafko.spring.transaction;

import static dev.kafko.spring.transaction.KafkoTransactionsTest.endOffsets;
import static dev.kafko.spring.transaction.KafkoTransactionsTest.template;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import dev.kafko.spring.transaction.KafkoTransactionsTest.OtherManager;
import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import dev.kafko.spring.core.BackendProducer;
import java.io.IOException;
import java.util.Map;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import dev.kafko.InvalidPartitionException;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.NestedTransactionNotSupportedException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Where a transaction of a transactional template begins and ends: a topic's records are one write at the commit,
 * whichever template on the backend sent them; a send from another manager's after-commit callback is written; a
 * scope with synchronization but no transaction is not joined; a callback's checked throw rolls back; the commit
 * returns once every send's future completed.
 */
class TransactionBoundariesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.template.transactional=true",
                    "kafko.topics.t.partitions=3", "kafko.topics.one.partitions=1");

    @Test
    void aTopicsRecordsAreOneWriteAtTheCommitAllOrNone() {
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.u.partitions=2").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            Kafko kafko = context.getBean(Kafko.class);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                sent.add(ops.send("u", 0, null, "fits"));
                sent.add(ops.send("u", 1, null, "lost partition"));
                // u loses its partition 1 before the commit: the batch of u is refused whole
                kafko.deleteTopic("u");
                kafko.createTopic("u", TopicConfig.builder().partitions(1).build());
                return null;
            })).isInstanceOf(KafkoTransactionException.class).hasMessageContaining("[u] were not all written");
            assertThat(sent).allMatch(CompletableFuture::isCompletedExceptionally);
            assertThat(endOffsets(context, "u")).isZero();
        });
    }

    @Test
    void twoTemplatesOnOneBackendKeepTheOrderOfTheirSendsInAPartition() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> first = template(context);
            KafkoTemplate<Object, Object> second = new KafkoTemplate<>(context.getBean(LogBackend.class),
                    context.getBean(RecordMessageConverter.class));
            second.setTransactional(true);
            TransactionTemplate tx = new TransactionTemplate(
                    new KafkoTransactionManager(context.getBean(LogBackend.class)));
            tx.executeWithoutResult(status -> {
                first.send("one", "1");
                second.send("one", "2");
                first.send("one", "3");
                second.send("t", "elsewhere");
                first.send("one", "4");
            });
            assertThat(KafkoTestUtils.records(context, "one")).map(KafkoRecord::value)
                    .map(KafkoTransactionsTest::text).containsExactly("1", "2", "3", "4");
            assertThat(endOffsets(context, "t")).isOne();
        });
    }

    @Test
    void aSendFromAnotherManagersAfterCommitCallbackIsWritten() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            TransactionTemplate other = new TransactionTemplate(new OtherManager());
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            // as a @TransactionalEventListener(phase = AFTER_COMMIT) sends: nothing sent in the transaction itself
            other.executeWithoutResult(status -> afterCommit(() -> sent.add(template.send("t", "only after"))));
            // and after a send in the transaction, whose records the commit wrote already
            other.executeWithoutResult(status -> {
                sent.add(template.send("t", "during"));
                afterCommit(() -> sent.add(template.send("t", "after")));
            });
            assertThat(sent).hasSize(3);
            for (CompletableFuture<SendResult<Object, Object>> f : sent) {
                assertThat(f.join().topic()).isEqualTo("t");
            }
            assertThat(endOffsets(context, "t")).isEqualTo(3);
            assertThat(TransactionSynchronizationManager.getResourceMap()).isEmpty();
        });
    }

    @Test
    void aSendFromATransactionalEventListenerIsWrittenAtOnce() {
        runner.withUserConfiguration(EventListeners.class, AuditListener.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            AuditListener audit = context.getBean(AuditListener.class);
            TransactionTemplate other = new TransactionTemplate(new OtherManager());
            // Spring runs an AFTER_COMMIT listener in the transaction's afterCompletion, its synchronizations cleared
            other.executeWithoutResult(status -> {
                template.send("t", "order");
                context.publishEvent(new Placed("committed"));
            });
            // the listener's synchronization before the records' one: the held records are still open at its call
            other.executeWithoutResult(status -> {
                context.publishEvent(new Placed("refused"));
                template.send("t", "dropped");
                status.setRollbackOnly();
            });
            assertThat(audit.failures).isEmpty();
            assertThat(KafkoTestUtils.records(context, "audit")).map(KafkoRecord::value)
                    .map(KafkoTransactionsTest::text).containsExactly("committed", "rolled back: refused");
            assertThat(KafkoTestUtils.records(context, "t")).map(KafkoRecord::value)
                    .map(KafkoTransactionsTest::text).containsExactly("order");
            assertThat(TransactionSynchronizationManager.getResourceMap()).isEmpty();
        });
    }

    record Placed(String id) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class EventListeners {
    }

    static class AuditListener {
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private final KafkoTemplate<Object, Object> template;

        AuditListener(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
        void committed(Placed placed) {
            send(placed.id());
        }

        @TransactionalEventListener(phase = TransactionPhase.AFTER_ROLLBACK)
        void rolledBack(Placed placed) {
            send("rolled back: " + placed.id());
        }

        private void send(String text) {
            try {
                template.send("audit", text).join();
            } catch (Throwable e) {
                failures.add(e);   // Spring logs and swallows what an afterCompletion callback throws
            }
        }
    }

    @Test
    void aScopeWithSynchronizationButNoTransactionIsNotJoined() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int propagation : new int[] {TransactionDefinition.PROPAGATION_NOT_SUPPORTED,
                    TransactionDefinition.PROPAGATION_SUPPORTS, TransactionDefinition.PROPAGATION_NEVER}) {
                TransactionTemplate none = new TransactionTemplate(new OtherManager());
                none.setPropagationBehavior(propagation);
                none.executeWithoutResult(status -> {
                    assertThat(TransactionSynchronizationManager.isSynchronizationActive()).isTrue();
                    assertThat(template.inTransaction()).isFalse();
                    assertThatThrownBy(() -> template.send("t", "x")).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("No transaction is in process");
                });
            }
            assertThat(endOffsets(context, "t")).isZero();
        });
        runner.withPropertyValues("kafko.template.allow-non-transactional=true").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            TransactionTemplate none = new TransactionTemplate(new OtherManager());
            none.setPropagationBehavior(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
            none.executeWithoutResult(status -> {
                // written at once, as outside any transaction: waiting for it here is fine
                assertThat(template.send("t", "now").join().offset()).isZero();
                assertThat(endOffsets(context, "t")).isOne();
            });
        });
    }

    @Test
    void kafkosManagerFollowsSpringsPropagationRules() {
        runner.withPropertyValues("kafko.auto-create-topics=false").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            KafkoTransactionManager manager = new KafkoTransactionManager(context.getBean(LogBackend.class));
            TransactionTemplate outer = new TransactionTemplate(manager);
            // a participating scope marked rollback-only rolls the whole transaction back, and says so
            assertThatThrownBy(() -> outer.executeWithoutResult(status -> {
                template.send("t", "dropped");
                new TransactionTemplate(manager).executeWithoutResult(TransactionStatus::setRollbackOnly);
            })).isInstanceOf(UnexpectedRollbackException.class);
            TransactionTemplate mandatory = new TransactionTemplate(manager);
            mandatory.setPropagationBehavior(TransactionDefinition.PROPAGATION_MANDATORY);
            assertThatThrownBy(() -> mandatory.executeWithoutResult(s -> { }))
                    .isInstanceOf(IllegalTransactionStateException.class);
            TransactionTemplate nested = new TransactionTemplate(manager);
            nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
            assertThatThrownBy(() -> outer.executeWithoutResult(s -> nested.executeWithoutResult(n -> { })))
                    .isInstanceOf(NestedTransactionNotSupportedException.class);
            // a commit that fails leaves nothing bound: the thread's next transaction is a new one and commits
            assertThatThrownBy(() -> outer.executeWithoutResult(status -> {
                template.send("t", "fine");
                template.send("t", 9, null, "nowhere");
            })).isInstanceOf(InvalidPartitionException.class);
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("gone", TopicConfig.builder().partitions(1).build());
            assertThatThrownBy(() -> outer.executeWithoutResult(status -> {
                template.send("gone", "lost");
                kafko.deleteTopic("gone");
            })).isInstanceOf(KafkoTransactionException.class);
            assertThat(TransactionSynchronizationManager.getResourceMap()).isEmpty();
            outer.executeWithoutResult(status -> template.send("t", "next"));
            assertThat(endOffsets(context, "t")).isOne();
        });
    }

    @Test
    void aCheckedExceptionThrownByTheCallbackRollsTheTransactionBack() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            // a Kotlin lambda (or a sneaky throw) can throw a checked exception through the callback
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                sent.add(ops.send("t", "dropped"));
                return sneakyThrow(new IOException("disk on fire"));
            })).isInstanceOf(IOException.class).hasMessage("disk on fire");
            assertThat(sent.get(0)).isCompletedExceptionally();
            assertThatThrownBy(() -> sent.get(0).join()).hasCauseInstanceOf(TransactionRolledBackException.class);
            assertThat(endOffsets(context, "t")).isZero();
            template.executeInTransaction(ops -> ops.send("t", "next"));
            assertThat(endOffsets(context, "t")).isOne();
        });
    }

    @Test
    void theCommitReturnsOnceEverySendsFutureCompleted() throws InterruptedException {
        // a backend whose batch write completes on a thread of its own, which completes the send's future while the
        // commit goes on to wait for the write
        CountDownLatch waitedFor = new CountDownLatch(1);
        CountDownLatch completing = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        Thread[] writer = new Thread[1];
        BackendProducer producer = new BatchOnlyProducer() {

            @Override
            public CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> records, int[] partitions) {
                CompletableFuture<List<RecordPosition>> write = new CompletableFuture<>() {
                    @Override
                    public CompletableFuture<List<RecordPosition>> whenComplete(
                            BiConsumer<? super List<RecordPosition>, ? super Throwable> action) {
                        CompletableFuture<List<RecordPosition>> stage = super.whenComplete(action);
                        waitedFor.countDown();
                        await(completing);
                        return stage;
                    }
                };
                writer[0] = new Thread(() -> {
                    await(waitedFor);
                    write.complete(List.of(new RecordPosition(0, 0)));
                });
                writer[0].start();
                return write;
            }
        };
        KafkoTemplate<Object, Object> template = transactionalTemplate(producer);
        template.setProducerListener(new ProducerListener<>() {
            @Override
            public void onSuccess(SendResult<Object, Object> result) {
                completing.countDown();
                try {
                    // holds the completion of the send open: a commit that returned before it is seen returning
                    // while this waits (and the wait ends then); one that waits for it ends this wait at its timeout
                    returned.await(500, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
        template.executeInTransaction(ops -> sent.add(ops.send("one", "a")));
        boolean doneAtReturn = sent.get(0).isDone();
        returned.countDown();
        writer[0].join(10_000);
        assertThat(doneAtReturn).as("the send's future completed when the commit returned").isTrue();
        assertThat(sent.get(0).join().offset()).isZero();
    }

    @Test
    void aWriteThatFailsAfterItsCallFailsTheCommitAndEachSendWithItsFailure() {
        dev.kafko.KafkoException diskFull = new dev.kafko.KafkoException("disk full",
                new IOException("No space left on device"));
        BackendProducer producer = new BatchOnlyProducer() {

            @Override
            public CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> records, int[] partitions) {
                // accepted at the call, failed when written: through the future, with a cause of its own
                return CompletableFuture.failedFuture(diskFull);
            }
        };
        KafkoTemplate<Object, Object> template = transactionalTemplate(producer);
        List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
        assertThatThrownBy(() -> template.executeInTransaction(ops -> {
            sent.add(ops.send("one", "a"));
            sent.add(ops.send("one", "b"));
            return null;
        })).isInstanceOf(KafkoTransactionException.class)
                .hasMessageContaining("[one] were not all written").hasMessageContaining("those for [] were: disk full")
                .cause().isSameAs(diskFull);
        for (CompletableFuture<SendResult<Object, Object>> f : sent) {
            assertThat(f).isCompletedExceptionally();
            assertThat(f.handle((result, failure) -> failure).join()).isSameAs(diskFull);
        }
    }

    @Test
    void aSendsFutureDoesNotKeepTheTransactionsRecordsOnceItCompleted() {
        List<java.lang.ref.WeakReference<OutgoingRecord>> records = new ArrayList<>();
        BackendProducer producer = new BatchOnlyProducer() {

            @Override
            public void checkRecord(@Nullable Integer partition, OutgoingRecord record) {
                records.add(new java.lang.ref.WeakReference<>(record));
            }

            @Override
            public CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> batch, int[] partitions) {
                List<RecordPosition> positions = new ArrayList<>();
                for (int i = 0; i < batch.size(); i++) {
                    positions.add(new RecordPosition(0, i));
                }
                return CompletableFuture.completedFuture(positions);
            }
        };
        KafkoTemplate<Object, Object> template = transactionalTemplate(producer);
        List<CompletableFuture<SendResult<Object, Object>>> kept = new ArrayList<>();
        template.executeInTransaction(ops -> kept.add(ops.send("one", "x".repeat(1000))));
        assertThatThrownBy(() -> template.executeInTransaction(ops -> {
            kept.add(ops.send("one", "y".repeat(1000)));
            throw new IllegalStateException("rolled back");
        })).hasMessage("rolled back");
        assertThat(kept.get(0).join().offset()).isZero();
        assertThat(kept.get(1)).isCompletedExceptionally();
        assertThat(records).hasSize(2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (records.stream().anyMatch(r -> r.get() != null) && System.nanoTime() < deadline) {
            System.gc();
        }
        // the futures are still held here: what they refer to must not reach the records
        assertThat(kept).hasSize(2);
        assertThat(records).allMatch(r -> r.get() == null, "collected");
    }

    /** A backend of one topic and one partition, whose producer is given. */
    private static final class OneTopicBackend implements LogBackend {

        private final BackendProducer producer;

        OneTopicBackend(BackendProducer producer) {
            this.producer = producer;
        }

        @Override
        public BackendProducer producer(String topic) {
            return producer;
        }

        @Override
        public dev.kafko.spring.core.BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                dev.kafko.ConsumerRebalanceListener rebalanceListener) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void ensureTopic(String topic, int minPartitions) {
        }

        @Override
        public void checkTopicName(String topic) {
        }

        @Override
        public int partitionCount(String topic) {
            return 1;
        }

        @Override
        public Map<Integer, Long> endOffsets(String topic) {
            return Map.of(0, 0L);
        }

        @Override
        public Map<Integer, Long> committedOffsets(String topic, String group) {
            return Map.of();
        }

        @Override
        public long currentTimeMillis() {
            return 1L;
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void afterCommit(Runnable action) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static <T, E extends Throwable> T sneakyThrow(Throwable t) throws E {
        throw (E) t;
    }

    /** The producer of topic {@code one} that writes transactions' batches only (a single send is not expected). */
    private abstract static class BatchOnlyProducer implements BackendProducer {

        @Override
        public String topic() {
            return "one";
        }

        @Override
        public CompletableFuture<RecordPosition> send(@Nullable Integer partition, byte @Nullable [] key,
                                                      byte @Nullable [] value, Headers headers, long timestamp) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void flush() {
        }
    }

    private static KafkoTemplate<Object, Object> transactionalTemplate(BackendProducer producer) {
        KafkoTemplate<Object, Object> template = new KafkoTemplate<>(new OneTopicBackend(producer),
                new RecordMessageConverter(new org.springframework.messaging.converter.StringMessageConverter()));
        template.setTransactional(true);
        return template;
    }
}
