package dev.kafko.kotlin

import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration
import dev.kafko.spring.test.KafkoTestUtils
import dev.kafko.spring.support.Acknowledgment
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.extension.ExtendWith
import org.springframework.boot.test.system.CapturedOutput
import org.springframework.boot.test.system.OutputCaptureExtension
import kotlinx.coroutines.awaitCancellation
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.nio.file.Path
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * A suspend function still suspended when a stop overruns its shutdown timeout is cancelled with the stop, as a
 * `Mono` is (`CancelledStageAtStopTest`): the coroutine sees its cancellation, and its record is neither committed nor
 * dead-lettered, so it comes again at the next start.
 */
class SuspendListenerStopTest {

    @Test
    fun aCoroutineSuspendedAtTheStopIsCancelledAndItsRecordComesAgain(@TempDir dir: Path) {
        val runner = ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
            .withBean(Hanging::class.java)
            .withPropertyValues(
                "kafko.data-dir=$dir", "kafko.listener.shutdown-timeout=300ms",
                "kafko.listener.retry.max-attempts=2", "kafko.listener.dead-letter.enabled=true",
            )
        Hanging.hang = true
        runner.run { context ->
            template(context).send("hanging", "r1").join()
            template(context).send("hanging", "r2").join()
            assertThat(Hanging.waiting.await(20, TimeUnit.SECONDS)).`as`("the coroutine suspends on r2").isTrue()
        } // closes while the coroutine is suspended: the stop overruns its 300 ms
        assertThat(Hanging.cancelled.await(20, TimeUnit.SECONDS)).`as`("the coroutine was cancelled").isTrue()

        Hanging.hang = false
        runner.run { context ->
            KafkoTestUtils.waitForListeners(context, WAIT)
            assertThat(Hanging.received).`as`("r1 committed; r2 not: delivered again").containsExactly("r1", "r2", "r2")
            assertThat(KafkoTestUtils.records(context, "hanging.DLT")).`as`("not dead-lettered").isEmpty()
        }
    }

    @Test
    @ExtendWith(OutputCaptureExtension::class)
    fun aCoroutineThatAcknowledgedBeforeItsCancellationIsCommittedAndTheLogSaysSo(@TempDir dir: Path,
                                                                               output: CapturedOutput) {
        val runner = ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
            .withBean(Acknowledging::class.java)
            .withPropertyValues("kafko.data-dir=$dir", "kafko.listener.shutdown-timeout=300ms")
        runner.run { context ->
            template(context).send("acknowledging", "a1").join()
            assertThat(Acknowledging.acknowledged.await(20, TimeUnit.SECONDS)).isTrue()
        } // closes while the coroutine, which acknowledged its record, is suspended: the stop overruns its 300 ms

        runner.run { context ->
            assertThat(committed(context, "acknowledging", "acknowledging")).`as`("its acknowledgment counts")
                .isEqualTo(1)
        }
        assertThat(output.out).`as`("no claim that an acknowledged record comes again")
            .doesNotContain("they are not committed and will be delivered again")
            .doesNotContain("and its record will be delivered again")
            .contains("not committed unless the listener acknowledged")
    }

    @Test
    @ExtendWith(OutputCaptureExtension::class)
    fun aRetryThatAcknowledgedBeforeItsCancellationIsCommittedAndTheLogSaysSo(@TempDir dir: Path,
                                                                          output: CapturedOutput) {
        val runner = ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
            .withBean(RetryAcknowledging::class.java)
            .withPropertyValues("kafko.data-dir=$dir", "kafko.listener.shutdown-timeout=300ms",
                "kafko.listener.retry.max-attempts=3")
        runner.run { context ->
            template(context).send("retry-acknowledging", "a1").join()
            assertThat(RetryAcknowledging.acknowledged.await(20, TimeUnit.SECONDS)).isTrue()
        } // closes while the retry, which acknowledged its record, is suspended: the stop overruns its 300 ms

        runner.run { context ->
            assertThat(committed(context, "retry-acknowledging", "retry-acknowledging"))
                .`as`("the retry's acknowledgment counts").isEqualTo(1)
        }
        assertThat(output.out).`as`("no claim that an acknowledged record comes again")
            .doesNotContain("they are not committed and will be delivered again")
            .doesNotContain("and its record will be delivered again")
    }

    class RetryAcknowledging {
        @KafkoListener(id = "retry-acknowledging", topics = ["retry-acknowledging"], ackMode = "manual_immediate")
        suspend fun on(value: String, ack: Acknowledgment) {
            if (acknowledged.count == 0L) {
                return // the record is not delivered again: the second start leaves it alone
            }
            if (attempts.incrementAndGet() == 1) {
                throw IllegalStateException("first attempt fails")
            }
            withContext(Dispatchers.Default) {
                delay(5)
                ack.acknowledge()
            }
            acknowledged.countDown()
            awaitCancellation()
        }

        companion object {
            val acknowledged = CountDownLatch(1)
            val attempts = AtomicInteger()
        }
    }

    class Acknowledging {
        @KafkoListener(id = "acknowledging", topics = ["acknowledging"], ackMode = "manual_immediate")
        suspend fun on(value: String, ack: Acknowledgment) {
            if (acknowledged.count == 0L) {
                return // the record is not delivered again: the second start leaves it alone
            }
            withContext(Dispatchers.Default) {
                delay(5)
                ack.acknowledge()
            }
            acknowledged.countDown()
            awaitCancellation()
        }

        companion object {
            val acknowledged = CountDownLatch(1)
        }
    }

    class Hanging {
        @KafkoListener(id = "hanging", topics = ["hanging"])
        suspend fun on(value: String) {
            received.add(value)
            if (hang && value == "r2") {
                waiting.countDown()
                try {
                    awaitCancellation()
                } catch (e: CancellationException) {
                    cancelled.countDown()
                    throw e
                }
            }
        }

        companion object {
            val received: MutableList<String> = CopyOnWriteArrayList()
            val waiting = CountDownLatch(1)
            val cancelled = CountDownLatch(1)
            @Volatile var hang = true
        }
    }
}
