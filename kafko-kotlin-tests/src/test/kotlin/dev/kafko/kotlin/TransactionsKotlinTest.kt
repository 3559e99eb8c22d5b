package dev.kafko.kotlin

import dev.kafko.Kafko
import dev.kafko.PartitionInfo
import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration
import dev.kafko.spring.core.KafkoTemplate
import dev.kafko.spring.support.SendResult
import dev.kafko.spring.test.KafkoTestUtils
import dev.kafko.spring.transaction.KafkoTransactionManager
import dev.kafko.spring.transaction.TransactionRolledBackException
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import java.io.IOException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import kotlin.concurrent.thread
import kotlin.coroutines.resume
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

/**
 * The template's transactions from Kotlin: a lambda may throw a checked exception through `executeInTransaction`,
 * which must still drop what it sent; and a suspend listener's attempt runs in the container's transaction while the
 * coroutine runs on the polling thread: until it first suspends, and on past a suspension point that did not suspend.
 */
class TransactionsKotlinTest {

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
        .withPropertyValues(
            "kafko.ephemeral=true", "kafko.template.transactional=true",
            "kafko.template.allow-non-transactional=true", "kafko.listener.retry.max-attempts=3",
        )

    @BeforeEach
    fun reset() {
        Shipper.attempts.set(0)
        Shipper.elsewhere.clear()
        Waiter.attempts.set(0)
        Waiter.threads.clear()
        Waiter.sent.clear()
    }

    @Test
    fun aCheckedExceptionFromAKotlinLambdaRollsTheTransactionBack() {
        runner.run { context ->
            val template = template(context)
            var sent: CompletableFuture<*>? = null
            assertThatThrownBy {
                template.executeInTransaction<Any> { ops ->
                    sent = ops.send("events", "never written")
                    throw IOException("the disk of some other system")
                }
            }.isInstanceOf(IOException::class.java)
            assertThat(sent!!.isCompletedExceptionally).isTrue()
            assertThatThrownBy { sent!!.join() }.hasCauseInstanceOf(TransactionRolledBackException::class.java)
            assertThat(records(context, "events")).isZero()
            template.executeInTransaction<Any> { ops -> ops.send("events", "written") }
            assertThat(records(context, "events")).isOne()
        }
    }

    @Test
    fun aSuspendListenerSendsInTheAttemptsTransactionUntilItFirstSuspends() {
        runner.withBean(KafkoTransactionManager::class.java).withBean(Shipper::class.java).run { context ->
            template(context).send("kt-orders", "o-1").join()
            KafkoTestUtils.waitForListeners(context, WAIT)
            assertThat(Shipper.attempts.get()).isEqualTo(3)
            // before its first suspension the coroutine runs on the polling thread, in the attempt's transaction:
            // the failed attempts' sends were dropped
            assertThat(KafkoTestUtils.records(context, "kt-shipments").map { text(it.value()) })
                .containsExactly("shipped o-1 at attempt 3")
            // a send from another thread is in no transaction: written at once under allow-non-transactional, that
            // of each failed attempt too
            assertThat(Shipper.elsewhere.map { it.join().value() })
                .containsExactly("elsewhere o-1 at attempt 1", "elsewhere o-1 at attempt 2", "elsewhere o-1 at attempt 3")
            assertThat(KafkoTestUtils.records(context, "kt-elsewhere").map { text(it.value()) })
                .containsExactly("elsewhere o-1 at attempt 1", "elsewhere o-1 at attempt 2", "elsewhere o-1 at attempt 3")
        }
    }

    /**
     * A suspension point whose continuation is resumed before the coroutine got to suspend does not suspend: the code
     * after it runs on the polling thread, in the attempt's transaction. So does the code after a `delay` whose
     * timer fired while the polling thread, descheduled for longer than the delay, had not yet suspended: this test
     * resumes the continuation from another thread at that moment, as the timer's thread did.
     */
    @Test
    fun codeAfterASuspensionResumedBeforeTheCoroutineSuspendedSendsInTheAttemptsTransaction() {
        runner.withBean(KafkoTransactionManager::class.java).withBean(Waiter::class.java).run { context ->
            template(context).send("kt-waits", "w-1").join()
            KafkoTestUtils.waitForListeners(context, WAIT)
            assertThat(Waiter.attempts.get()).isEqualTo(3)
            assertThat(Waiter.threads).hasSize(3).allMatch { it.startsWith("kt-waiter-0") }
            assertThat(KafkoTestUtils.records(context, "kt-waited").map { text(it.value()) })
                .containsExactly("waited w-1 at attempt 3")
            for (failed in Waiter.sent.subList(0, 2)) {
                assertThatThrownBy { failed.join() }.hasCauseInstanceOf(TransactionRolledBackException::class.java)
            }
            assertThat(Waiter.sent[2].join().value()).isEqualTo("waited w-1 at attempt 3")
        }
    }

    class Shipper(private val template: KafkoTemplate<Any, Any>) {
        @KafkoListener(id = "kt-shipper", topics = ["kt-orders"])
        suspend fun ship(order: String) {
            val attempt = attempts.incrementAndGet()
            template.send("kt-shipments", "shipped $order at attempt $attempt")
            // the block runs on an IO thread whether the coroutine suspends here or not
            elsewhere.add(withContext(Dispatchers.IO) {
                template.send("kt-elsewhere", "elsewhere $order at attempt $attempt")
            })
            check(attempt >= 3) { "attempt $attempt fails" }
        }

        companion object {
            val attempts = AtomicInteger()
            val elsewhere = CopyOnWriteArrayList<CompletableFuture<SendResult<Any, Any>>>()
        }
    }

    class Waiter(private val template: KafkoTemplate<Any, Any>) {
        @KafkoListener(id = "kt-waiter", topics = ["kt-waits"])
        suspend fun await(order: String) {
            val attempt = attempts.incrementAndGet()
            suspendCancellableCoroutine { continuation ->
                // the timer's thread, resuming the coroutine before it suspended
                thread { continuation.resume(Unit) }.join()
            }
            threads.add(Thread.currentThread().name)
            sent.add(template.send("kt-waited", "waited $order at attempt $attempt"))
            check(attempt >= 3) { "attempt $attempt fails" }
        }

        companion object {
            val attempts = AtomicInteger()
            val threads = CopyOnWriteArrayList<String>()
            val sent = CopyOnWriteArrayList<CompletableFuture<SendResult<Any, Any>>>()
        }
    }

    private fun records(context: ApplicationContext, topic: String): Long =
        context.getBean(Kafko::class.java).topic(topic).map { t -> t.partitions().sumOf(PartitionInfo::endOffset) }
            .orElse(0L)
}
