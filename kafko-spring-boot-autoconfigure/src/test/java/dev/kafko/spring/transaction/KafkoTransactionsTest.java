package dev.kafko.spring.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import dev.kafko.TopicConfig;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A transactional {@link KafkoTemplate}: its records are written when the transaction commits (of
 * {@code executeInTransaction}, of {@link KafkoTransactionManager}, or of another manager), never before, and dropped
 * when it rolls back.
 */
class KafkoTransactionsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.template.transactional=true", "kafko.topics.t.partitions=3",
                    "kafko.topics.u.partitions=2");

    @Test
    void executeInTransactionWritesEverySendWhenTheCallbackReturnsAndNothingBefore() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            String result = template.executeInTransaction(ops -> {
                assertThat(ops.inTransaction()).isTrue();
                for (int i = 0; i < 12; i++) {
                    sent.add(ops.send("t", "k" + (i % 4), "v" + i));
                }
                sent.add(ops.send("u", 1, null, "explicit"));
                sent.add(ops.send("u", "keyless"));
                assertThat(endOffsets(context, "t") + endOffsets(context, "u")).isZero();
                assertThat(sent).noneMatch(CompletableFuture::isDone);
                return "done";
            });
            assertThat(result).isEqualTo("done");
            assertThat(template.inTransaction()).isFalse();
            assertThat(sent).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            assertThat(endOffsets(context, "t")).isEqualTo(12);
            assertThat(endOffsets(context, "u")).isEqualTo(2);
            assertThat(sent.get(12).join().partition()).isOne();
            // each key's records in their partition, in the order they were sent
            List<KafkoRecord> records = KafkoTestUtils.records(context, "t");
            for (int key = 0; key < 4; key++) {
                String k = "k" + key;
                List<String> values = records.stream().filter(r -> text(r.key()).equals(k)).map(r -> text(r.value()))
                        .toList();
                assertThat(values).containsExactly("v" + key, "v" + (key + 4), "v" + (key + 8));
            }
            for (int i = 0; i < 12; i++) {
                SendResult<Object, Object> r = sent.get(i).join();
                assertThat(text(records.stream().filter(x -> x.partition() == r.partition() && x.offset() == r.offset())
                        .findFirst().orElseThrow().value())).isEqualTo("v" + i);
            }
        });
    }

    @Test
    void aCallbackThatThrowsWritesNothingAndItsSendsFailAsRolledBack() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                sent.add(ops.send("t", "a"));
                sent.add(ops.send("u", "b"));
                throw new IllegalArgumentException("changed my mind");
            })).isInstanceOf(IllegalArgumentException.class).hasMessage("changed my mind");
            assertThat(sent).allMatch(CompletableFuture::isCompletedExceptionally);
            assertThatThrownBy(() -> sent.get(0).join()).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(TransactionRolledBackException.class);
            assertThat(endOffsets(context, "t") + endOffsets(context, "u")).isZero();
            // the template goes on: the next transaction writes
            template.executeInTransaction(ops -> ops.send("t", "c"));
            assertThat(endOffsets(context, "t")).isOne();
        });
    }

    @Test
    void waitingForASendInsideItsOwnTransactionIsRefusedInsteadOfWaitingForEver() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThatThrownBy(() -> template.executeInTransaction(ops -> ops.send("t", "a").join()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("has not committed");
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                try {
                    return ops.send("t", "a").get(1, java.util.concurrent.TimeUnit.MINUTES);
                } catch (InterruptedException | java.util.concurrent.ExecutionException
                         | java.util.concurrent.TimeoutException e) {
                    throw new AssertionError(e);
                }
            })).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> template.executeInTransaction(ops -> ops.send("t", "a")
                    .thenApply(SendResult::offset).join())).isInstanceOf(IllegalStateException.class);
            assertThat(endOffsets(context, "t")).isZero();
            // another thread is not refused: its wait is one that ends, at the commit
            Object waited = template.executeInTransaction(ops -> {
                CompletableFuture<SendResult<Object, Object>> sent = ops.send("t", "c");
                return CompletableFuture.<Object>supplyAsync(() -> {
                    try {
                        return sent.get(1, java.util.concurrent.TimeUnit.MILLISECONDS);
                    } catch (Exception e) {
                        return e;
                    }
                }).join();
            });
            assertThat(waited).isInstanceOf(java.util.concurrent.TimeoutException.class);
            assertThat(endOffsets(context, "t")).isOne();
            CompletableFuture<SendResult<Object, Object>> later = template.executeInTransaction(ops -> ops.send("t", "b"));
            assertThat(later.join().offset()).isZero();
            assertThat(endOffsets(context, "t")).isEqualTo(2);
        });
    }

    /** A guard against the hang this test finds: without the refusal, the wait never ends. */
    @Test
    @org.junit.jupiter.api.Timeout(value = 30, unit = java.util.concurrent.TimeUnit.SECONDS,
            threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aMinimalStageOfASendInsideItsOwnTransactionRefusesTheWaitToo() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThatThrownBy(() -> template.executeInTransaction(ops -> ops.send("t", "a")
                    .minimalCompletionStage().toCompletableFuture().join()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("has not committed");
            assertThatThrownBy(() -> template.executeInTransaction(ops -> ops.send("t", "a")
                    .minimalCompletionStage().thenApply(SendResult::offset).toCompletableFuture().join()))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(endOffsets(context, "t")).isZero();
            // a minimal stage stays one: it can be neither completed nor waited for itself
            java.util.concurrent.CompletionStage<SendResult<Object, Object>> minimal =
                    template.executeInTransaction(ops -> ops.send("t", "b").minimalCompletionStage());
            assertThatThrownBy(() -> ((CompletableFuture<?>) minimal).complete(null))
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThat(minimal.toCompletableFuture().join().offset()).isZero();
            assertThat(endOffsets(context, "t")).isOne();
        });
    }

    /**
     * The minimal stage of a send keeps the JDK's contract: a failure reaches it as a {@code CompletionException}
     * with the send's failure as cause, and whether it is done is not told but by its {@code toCompletableFuture()}.
     */
    @Test
    void aMinimalStageOfASendKeepsTheJdkContractOfAMinimalStage() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletionStage<SendResult<Object, Object>>> stages = new ArrayList<>();
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                stages.add(ops.send("t", "a").minimalCompletionStage());
                throw new IllegalArgumentException("changed my mind");
            })).isInstanceOf(IllegalArgumentException.class);
            CompletableFuture<SendResult<Object, Object>> jdk = new CompletableFuture<>();
            stages.add(jdk.minimalCompletionStage());
            jdk.completeExceptionally(new TransactionRolledBackException("as a reference"));
            for (CompletionStage<SendResult<Object, Object>> stage : stages) {
                Throwable seen = stage.handle((r, e) -> e).toCompletableFuture().join();
                assertThat(seen).isInstanceOf(CompletionException.class)
                        .hasCauseInstanceOf(TransactionRolledBackException.class);
                assertThat(stage.toCompletableFuture().isCompletedExceptionally()).isTrue();
                CompletableFuture<?> minimal = (CompletableFuture<?>) stage;
                assertThatThrownBy(minimal::isDone).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(minimal::isCancelled).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(minimal::isCompletedExceptionally)
                        .isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(minimal::getNumberOfDependents).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.thenApply(r -> r).isDone())
                        .isInstanceOf(UnsupportedOperationException.class);
            }
        });
    }

    /**
     * A send's own future is a full one: it answers being completed, cancelled or asked for its dependents as a plain
     * future does, inside the transaction and once it rolled back.
     */
    @Test
    void aSendsFutureAnswersAsAPlainFutureInsideItsTransactionAndAfter() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                CompletableFuture<SendResult<Object, Object>> held = ops.send("t", "a");
                held.thenApply(SendResult::offset);
                assertThat(held.getNumberOfDependents()).isOne();
                assertThat(held.isCancelled()).isFalse();
                sent.add(held);
                CompletableFuture<SendResult<Object, Object>> cancelled = ops.send("t", "b");
                assertThat(cancelled.cancel(true)).isTrue();
                assertThat(cancelled.isCancelled()).isTrue();
                assertThat(ops.send("t", "c").completeExceptionally(new IllegalStateException("mine"))).isTrue();
                assertThat(ops.send("t", "d").complete(null)).isTrue();
                throw new IllegalArgumentException("changed my mind");
            })).isInstanceOf(IllegalArgumentException.class);
            CompletableFuture<SendResult<Object, Object>> jdk = new CompletableFuture<>();
            jdk.completeExceptionally(new TransactionRolledBackException("as a reference"));
            sent.add(jdk);
            for (CompletableFuture<SendResult<Object, Object>> future : sent) {
                assertThat(future.isCompletedExceptionally()).isTrue();
                assertThat(future.complete(null)).isFalse();
                assertThat(future.completeExceptionally(new IllegalStateException("late"))).isFalse();
                assertThat(future.cancel(true)).isFalse();
                assertThat(future.isCancelled()).isFalse();
                future.obtrudeException(new IllegalStateException("forced"));
                assertThat(future.handle((r, e) -> e).join()).hasMessage("forced");
                future.obtrudeValue(null);
                assertThat(future.isCompletedExceptionally()).isFalse();
            }
            assertThat(endOffsets(context, "t")).isZero();
        });
    }

    /** A minimal stage refuses to be completed or waited for itself after its send completed too, as the JDK's. */
    @Test
    void aMinimalStageOfACommittedSendRefusesWhatTheJdksRefuses() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            CompletionStage<SendResult<Object, Object>> ours =
                    template.executeInTransaction(ops -> ops.send("t", "a").minimalCompletionStage());
            SendResult<Object, Object> result = ours.toCompletableFuture().join();
            assertThat(result.offset()).isZero();
            for (CompletionStage<SendResult<Object, Object>> stage : List.of(ours,
                    CompletableFuture.completedStage(result))) {
                CompletableFuture<SendResult<Object, Object>> minimal = (CompletableFuture<SendResult<Object, Object>>) stage;
                assertThatThrownBy(minimal::get).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.get(1, java.util.concurrent.TimeUnit.SECONDS))
                        .isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(minimal::join).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.getNow(null)).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.cancel(true)).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.completeExceptionally(new IllegalStateException("mine")))
                        .isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.completeAsync(() -> result, Runnable::run))
                        .isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.orTimeout(1, java.util.concurrent.TimeUnit.SECONDS))
                        .isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.completeOnTimeout(result, 1, java.util.concurrent.TimeUnit.SECONDS))
                        .isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.obtrudeValue(result)).isInstanceOf(UnsupportedOperationException.class);
                assertThatThrownBy(() -> minimal.obtrudeException(new IllegalStateException("mine")))
                        .isInstanceOf(UnsupportedOperationException.class);
                assertThat(stage.toCompletableFuture().getNow(null)).isSameAs(result);
            }
        });
    }

    @Test
    void aTransactionalTemplateRefusesASendOutsideATransactionUnlessAllowedAndNestingIsRefused() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThat(template.isTransactional()).isTrue();
            assertThat(template.isAllowNonTransactional()).isFalse();
            assertThatThrownBy(() -> template.send("t", "x")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("No transaction is in process").hasMessageContaining("kafkoTemplate");
            assertThatThrownBy(() -> template.executeInTransaction(ops -> template.executeInTransaction(o -> "inner")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Nested");
            assertThat(endOffsets(context, "t")).isZero();
        });
        runner.withPropertyValues("kafko.template.allow-non-transactional=true").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThat(template.isAllowNonTransactional()).isTrue();
            assertThat(template.send("t", "x").join().offset()).isZero();
        });
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    assertThat(template.isTransactional()).isFalse();
                    assertThatThrownBy(() -> template.executeInTransaction(ops -> "x"))
                            .isInstanceOf(IllegalStateException.class).hasMessageContaining("kafko.template.transactional");
                });
    }

    @Test
    void insideAnotherManagersTransactionTheRecordsAreWrittenAfterItCommitsAndDroppedWhenItRollsBack() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            TransactionTemplate other = new TransactionTemplate(new OtherManager());
            CompletableFuture<SendResult<Object, Object>> sent = other.execute(status -> {
                assertThat(template.inTransaction()).isTrue();
                CompletableFuture<SendResult<Object, Object>> f = template.send("t", "k", "committed");
                template.send("u", "too");
                assertThat(endOffsets(context, "t")).isZero();
                return f;
            });
            assertThat(sent.join().offset()).isZero();
            assertThat(endOffsets(context, "t")).isOne();
            assertThat(endOffsets(context, "u")).isOne();

            CompletableFuture<SendResult<Object, Object>> dropped = other.execute(status -> {
                CompletableFuture<SendResult<Object, Object>> f = template.send("t", "k", "rolled back");
                status.setRollbackOnly();
                return f;
            });
            assertThatThrownBy(dropped::join).hasCauseInstanceOf(TransactionRolledBackException.class);
            assertThatThrownBy(() -> other.executeWithoutResult(status -> {
                template.send("t", "k", "thrown");
                throw new IllegalStateException("boom");
            })).hasMessage("boom");
            assertThat(endOffsets(context, "t")).isOne();
            assertThat(template.inTransaction()).isFalse();
        });
    }

    @Test
    void aSendFromTheCompletionOfAnotherManagersTransactionIsWrittenOnceItCompleted() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            TransactionTemplate other = new TransactionTemplate(new OtherManager());
            List<CompletableFuture<SendResult<Object, Object>>> afterCommit = new ArrayList<>();
            // as an AFTER_COMMIT event listener does: once without a send of the transaction before it, once with one
            for (boolean sentBefore : new boolean[] {false, true}) {
                other.executeWithoutResult(status -> {
                    if (sentBefore) {
                        template.send("u", "in the transaction");
                    }
                    org.springframework.transaction.support.TransactionSynchronizationManager.registerSynchronization(
                            new org.springframework.transaction.support.TransactionSynchronization() {
                                @Override
                                public void afterCommit() {
                                    afterCommit.add(template.send("t", "after the commit"));
                                }
                            });
                });
            }
            assertThat(afterCommit).hasSize(2).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            assertThat(endOffsets(context, "t")).isEqualTo(2);
            assertThat(endOffsets(context, "u")).isOne();
            assertThat(template.inTransaction()).isFalse();
        });
    }

    @Test
    void aKafkoScopeMarkedRollbackOnlyDropsTheRecordsItJoinedInAnotherManagersTransaction() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            TransactionTemplate kafkoScope = new TransactionTemplate(
                    new KafkoTransactionManager(context.getBean(LogBackend.class)));
            TransactionTemplate other = new TransactionTemplate(new OtherManager());
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            assertThatThrownBy(() -> other.executeWithoutResult(status -> {
                sent.add(template.send("t", "joined"));
                kafkoScope.executeWithoutResult(org.springframework.transaction.TransactionStatus::setRollbackOnly);
            })).isInstanceOf(org.springframework.transaction.UnexpectedRollbackException.class)
                    .hasMessageContaining("marked rollback-only");
            assertThat(endOffsets(context, "t")).isZero();
            assertThatThrownBy(() -> sent.get(0).join()).hasCauseInstanceOf(TransactionRolledBackException.class);
            // the thread's next transaction starts afresh
            other.executeWithoutResult(status -> template.send("t", "next"));
            assertThat(endOffsets(context, "t")).isOne();
        });
    }

    @Test
    void aTemplateThatIsNotTransactionalWritesAtOnceInsideAnotherManagersTransaction() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    new TransactionTemplate(new OtherManager()).executeWithoutResult(status -> {
                        template.send("t", "now").join();
                        assertThat(endOffsets(context, "t")).isOne();
                        status.setRollbackOnly();
                    });
                    assertThat(endOffsets(context, "t")).isOne();
                });
    }

    @Test
    void theTransactionManagerCommitsWhatItsTransactionSentAndANewTransactionInsideIsItsOwn() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            KafkoTransactionManager manager = new KafkoTransactionManager(context.getBean(LogBackend.class));
            TransactionTemplate outer = new TransactionTemplate(manager);
            TransactionTemplate inner = new TransactionTemplate(manager);
            inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            TransactionTemplate joined = new TransactionTemplate(manager);

            outer.executeWithoutResult(status -> {
                template.send("t", "outer");
                joined.executeWithoutResult(s -> template.send("t", "joined"));
                inner.executeWithoutResult(s -> template.send("u", "inner"));
                // the inner, new transaction committed; the outer one's records are still held
                assertThat(endOffsets(context, "u")).isOne();
                assertThat(endOffsets(context, "t")).isZero();
                status.setRollbackOnly();
            });
            assertThat(endOffsets(context, "t")).isZero();

            outer.executeWithoutResult(status -> {
                template.send("t", "outer");
                joined.executeWithoutResult(s -> template.send("t", "joined"));
                inner.executeWithoutResult(s -> template.send("u", "inner"));
                // the outer transaction is the thread's again: joined, not refused
                assertThat(template.inTransaction()).isTrue();
                template.send("t", "after the inner one");
            });
            assertThat(endOffsets(context, "t")).isEqualTo(3);
            assertThat(endOffsets(context, "u")).isEqualTo(2);
            assertThatThrownBy(() -> new TransactionTemplate(manager, isolation()).executeWithoutResult(s -> { }))
                    .hasMessageContaining("isolation");
            assertThat(manager.getResourceFactory()).isSameAs(context.getBean(LogBackend.class));
        });
    }

    @Test
    void aNewKafkoTransactionInsideAnotherManagersTransactionIsItsOwnAndTheOuterRecordsStayHeld() {
        runner.withPropertyValues("kafko.topics.small.max-record-size=100").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            TransactionTemplate inner = new TransactionTemplate(
                    new KafkoTransactionManager(context.getBean(LogBackend.class)));
            inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            TransactionTemplate other = new TransactionTemplate(new OtherManager());
            other.executeWithoutResult(status -> {
                template.send("t", "outer");
                inner.executeWithoutResult(s -> template.send("u", "inner"));
                assertThat(endOffsets(context, "u")).isOne();
                assertThat(endOffsets(context, "t")).isZero();
                template.send("t", "outer again");
            });
            assertThat(endOffsets(context, "t")).isEqualTo(2);
            other.executeWithoutResult(status -> {
                template.send("t", "dropped");
                inner.executeWithoutResult(s -> template.send("u", "kept"));
                status.setRollbackOnly();
            });
            assertThat(endOffsets(context, "t")).isEqualTo(2);
            assertThat(endOffsets(context, "u")).isEqualTo(2);
            // the outer records before the inner transaction and after it are one transaction: a send refused after it
            // fails the commit of those before it too
            assertThatThrownBy(() -> other.executeWithoutResult(status -> {
                template.send("t", "held");
                inner.executeWithoutResult(s -> template.send("u", "own"));
                template.send("small", "x".repeat(200));
            })).isInstanceOf(KafkoTransactionException.class).hasMessageContaining("was refused");
            assertThat(endOffsets(context, "t")).isEqualTo(2);
            assertThat(endOffsets(context, "u")).isEqualTo(3);
        });
    }

    @Test
    void aSendRefusedInsideTheTransactionFailsItsCommitAndNothingIsWritten() {
        runner.withPropertyValues("kafko.topics.small.max-record-size=100").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                sent.add(ops.send("t", "fine"));
                sent.add(ops.send("small", "x".repeat(200)));
                sent.add(ops.send("t", "fine too"));
                return null;
            })).isInstanceOf(KafkoTransactionException.class).hasMessageContaining("was refused")
                    .hasCauseInstanceOf(RecordTooLargeException.class);
            assertThatThrownBy(() -> sent.get(1).join()).hasCauseInstanceOf(RecordTooLargeException.class);
            assertThatThrownBy(() -> sent.get(0).join()).hasCauseInstanceOf(TransactionRolledBackException.class);
            assertThat(endOffsets(context, "t") + endOffsets(context, "small")).isZero();
            // a partition out of range is thrown at the send, and fails the commit as well
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                ops.send("t", "fine");
                try {
                    ops.send("t", 7, null, "nowhere");
                } catch (dev.kafko.InvalidPartitionException e) {
                    // caught, and the transaction goes on to its commit
                }
                return null;
            })).isInstanceOf(KafkoTransactionException.class).hasMessageContaining("partition 7");
            // a negative partition is one out of range too, never a record left to be routed
            assertThatThrownBy(() -> template.executeInTransaction(ops -> ops.send("t", -1, null, "nowhere")))
                    .isInstanceOf(dev.kafko.InvalidPartitionException.class).hasMessageContaining("partition -1");
            assertThat(endOffsets(context, "t")).isZero();
        });
    }

    @Test
    void aWriteThatFailsAtTheCommitNamesWhatWasWrittenAndWhatWasNot() {
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.w.partitions=1").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            Kafko kafko = context.getBean(Kafko.class);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                sent.add(ops.send("t", "written"));
                sent.add(ops.send("u", 1, null, "lost partition"));
                sent.add(ops.send("w", "never tried"));
                // u loses its partition 1 before the commit
                kafko.deleteTopic("u");
                kafko.createTopic("u", TopicConfig.builder().partitions(1).build());
                return null;
            })).isInstanceOf(KafkoTransactionException.class)
                    .hasMessageContaining("[u, w] were not all written").hasMessageContaining("[t] were");
            assertThat(sent.get(0).join().offset()).isZero();
            assertThatThrownBy(() -> sent.get(1).join()).hasCauseInstanceOf(dev.kafko.InvalidPartitionException.class);
            assertThatThrownBy(() -> sent.get(2).join()).hasCauseInstanceOf(KafkoTransactionException.class);
            assertThat(endOffsets(context, "t")).isOne();
            assertThat(endOffsets(context, "u") + endOffsets(context, "w")).isZero();
        });
    }

    @Test
    void aTransactionThatCompletedRefusesASendAndAnotherCommit() {
        KafkoResourceHolder committed = new KafkoResourceHolder();
        committed.commit();
        KafkoResourceHolder rolledBack = new KafkoResourceHolder();
        rolledBack.rollback();
        for (KafkoResourceHolder done : List.of(committed, rolledBack)) {
            assertThat(done.isOpen()).isFalse();
            // a record held there would never be written, its future never completed
            assertThatThrownBy(() -> done.add((topic, records, partitions) -> new CompletableFuture<>(), "t", 0,
                    dev.kafko.OutgoingRecord.of(null, new byte[1])))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Cannot send in");
            assertThatThrownBy(done::commit).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Cannot commit");
            done.rollback();
            assertThat(done.isOpen()).isFalse();
        }
    }

    @Test
    void anErrorThrownByACommitsWriteFailsEveryHeldSendAndTheTransactionEnds() {
        KafkoResourceHolder transaction = new KafkoResourceHolder();
        AssertionError broken = new AssertionError("writer broke");
        List<String> written = new ArrayList<>();
        KafkoTransaction.TopicWriter writer = (topic, records, partitions) -> {
            if (topic.equals("u")) {
                throw broken;
            }
            written.add(topic);
            List<dev.kafko.RecordPosition> positions = new ArrayList<>();
            for (int i = 0; i < records.size(); i++) {
                positions.add(new dev.kafko.RecordPosition(0, i));
            }
            return CompletableFuture.completedFuture(positions);
        };
        List<CompletableFuture<dev.kafko.RecordPosition>> sent = new ArrayList<>();
        for (String topic : List.of("t", "u", "v")) {
            sent.add(transaction.add(writer, topic, 0, dev.kafko.OutgoingRecord.of(null, new byte[1])));
        }

        assertThatThrownBy(transaction::commit).isSameAs(broken);

        // no future is left for ever incomplete: t was written, u and v were not
        assertThat(written).containsExactly("t");
        assertThat(sent.get(0)).isCompleted();
        assertThat(sent.get(1)).isCompletedExceptionally();
        assertThat(sent.get(2)).isCompletedExceptionally();
        assertThat(sent.get(2).handle((r, e) -> e).join()).isInstanceOf(KafkoTransactionException.class)
                .hasCause(broken);
        assertThat(transaction.isOpen()).isFalse();
    }

    private static TransactionDefinition isolation() {
        org.springframework.transaction.support.DefaultTransactionDefinition d =
                new org.springframework.transaction.support.DefaultTransactionDefinition();
        d.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
        return d;
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static long endOffsets(ApplicationContext context, String topic) {
        return context.getBean(Kafko.class).topic(topic).map(t -> t.partitions().stream()
                .mapToLong(dev.kafko.PartitionInfo::endOffset).sum()).orElse(0L);
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** A manager of some other resource (a database's, say), whose transactions synchronize. */
    static final class OtherManager extends AbstractPlatformTransactionManager {

        private static final long serialVersionUID = 1L;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }
}
