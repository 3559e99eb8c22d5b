package dev.kafko.kotlin

import dev.kafko.Kafko
import dev.kafko.PartitionInfo
import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration
import dev.kafko.spring.core.KafkoTemplate
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
import java.util.concurrent.atomic.AtomicInteger

/**
 * The template's transactions from Kotlin: a lambda may throw a checked exception through `executeInTransaction`,
 * which must still drop what it sent; and a suspend listener's attempt runs in the container's transaction until the
 * coroutine first suspends.
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
        }
    }

    class Shipper(private val template: KafkoTemplate<Any, Any>) {
        @KafkoListener(id = "kt-shipper", topics = ["kt-orders"])
        suspend fun ship(order: String) {
            val attempt = attempts.incrementAndGet()
            template.send("kt-shipments", "shipped $order at attempt $attempt")
            kotlinx.coroutines.delay(2)
            check(attempt >= 3) { "attempt $attempt fails" }
        }

        companion object {
            val attempts = AtomicInteger()
        }
    }

    private fun records(context: ApplicationContext, topic: String): Long =
        context.getBean(Kafko::class.java).topic(topic).map { t -> t.partitions().sumOf(PartitionInfo::endOffset) }
            .orElse(0L)
}
