package dev.kafko.kotlin

import dev.kafko.spring.annotation.KafkoHandler
import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.listener.KafkoListenerErrorHandler
import dev.kafko.spring.support.Acknowledgment
import dev.kafko.spring.support.KafkoHeaders
import dev.kafko.spring.support.KafkoNull
import dev.kafko.spring.test.KafkoTestUtils
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.messaging.handler.annotation.Header
import org.springframework.messaging.handler.annotation.Payload
import org.springframework.messaging.handler.annotation.SendTo
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * A `@KafkoListener` that is a Kotlin `suspend fun` is run as a coroutine and awaited as a `Mono` is: its record is
 * committed only once the coroutine has finished (one returning `Unit` included), what it throws after a suspension
 * goes to the error handler, the retries and the dead-letter topic, and a `@SendTo` reply is what it returns. These
 * functions are compiled by the Kotlin compiler, with their real metadata and `Continuation` parameter; before, such a
 * listener was refused at start-up (B46), and without that refusal every record failed unrun and was committed.
 */
class SuspendListenerTest {

    private val runner = deadLetteringRunner(3)

    @BeforeEach
    fun reset() {
        State.reset()
    }

    @Test
    fun aRecordIsCommittedOnlyOnceTheCoroutineFinished() {
        runner.withBean(Gated::class.java).run { context ->
            template(context).send("gated-in", "a").join()
            template(context).send("gated-in", "b").join()
            assertThat(State.started.await(20, TimeUnit.SECONDS)).`as`("the coroutine runs and suspends on a").isTrue()

            assertThat(State.seen).`as`("b waits for a's coroutine").containsExactly("start a")
            assertThat(committed(context, "gated-in", "gated")).`as`("nothing committed while a is suspended")
                .isZero()
            State.release.complete(Unit)
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(State.seen).containsExactly("start a", "end a", "start b", "end b")
            assertThat(committed(context, "gated-in", "gated")).`as`("a suspend fun returning Unit is acknowledged")
                .isEqualTo(2)
        }
    }

    @Test
    fun theReplyIsWhatTheCoroutineReturnsAfterResumingOnAnotherThread() {
        runner.withBean(Replying::class.java).run { context ->
            template(context).send("reply-in", "ok").join()
            template(context).send("reply-in", "quiet").join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(KafkoTestUtils.records(context, "reply-out")).extracting<String> { text(it.value()) }
                .`as`("a null result sends nothing").containsExactly("OK on another thread")
            assertThat(committed(context, "reply-in", "replying")).isEqualTo(2)
        }
    }

    @Test
    fun aFailureAfterASuspensionIsRetriedThenDeadLetteredWithItsCause() {
        runner.withBean(Failing::class.java).run { context ->
            template(context).send("failing-in", "bad").join()
            template(context).send("failing-in", "good").join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(State.attempts("bad")).`as`("max-attempts").isEqualTo(3)
            assertThat(State.attempts("good")).isEqualTo(1)
            assertThat(KafkoTestUtils.records(context, "failing-in.DLT")).singleElement().satisfies({ r ->
                assertThat(text(r.value())).isEqualTo("bad")
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                    .isEqualTo(IllegalStateException::class.java.name)
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                    .contains("cannot handle bad after a suspension")
            })
            assertThat(committed(context, "failing-in", "failing")).isEqualTo(2)
        }
    }

    @Test
    fun aWithTimeoutThatExpiresIsTheFailureTheDeadLetterNames() {
        runner.withBean(TimingOut::class.java).run { context ->
            template(context).send("timeout-in", "slow").join()
            template(context).send("timeout-in", "quick").join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(State.attempts("slow")).`as`("retried as any failure").isEqualTo(3)
            assertThat(KafkoTestUtils.records(context, "timeout-in.DLT")).singleElement().satisfies({ r ->
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                    .isEqualTo(TimeoutCancellationException::class.java.name)
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                    .contains("Timed out waiting for 10 ms")
            })
            assertThat(committed(context, "timeout-in", "timing-out")).isEqualTo(2)
        }
    }

    @Test
    fun theListenersErrorHandlerGetsTheCoroutinesFailureAndItsResultIsTheReply() {
        runner.withBean(Handled::class.java).withBean("replyingErrorHandler", KafkoListenerErrorHandler::class.java,
            { KafkoListenerErrorHandler { _, e -> "handled " + e.cause!!.javaClass.simpleName + ": " + e.cause!!.message } })
            .run { context ->
                template(context).send("handled-in", "boom").join()
                template(context).send("handled-in", "fine").join()
                KafkoTestUtils.waitForListeners(context, WAIT)

                assertThat(KafkoTestUtils.records(context, "handled-out")).extracting<String> { text(it.value()) }
                    .containsExactly("handled IllegalArgumentException: boom in a coroutine", "FINE")
                assertThat(State.attempts("boom")).`as`("handled: no retries").isEqualTo(1)
                assertThat(KafkoTestUtils.records(context, "handled-in.DLT")).isEmpty()
                assertThat(committed(context, "handled-in", "handled")).isEqualTo(2)
            }
    }

    @Test
    fun aBatchListenerIsCommittedOnceItsCoroutineFinishedAndItsFailureIsRetried() {
        runner.withBean(Batches::class.java).run { context ->
            for (value in listOf("a", "b", "bad", "c")) {
                template(context).send("batch-in", value).join()
            }
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(State.batches.flatten().distinct()).containsExactlyInAnyOrder("a", "b", "bad", "c")
            assertThat(State.attempts("bad")).`as`("the failing batch is retried").isEqualTo(3)
            assertThat(KafkoTestUtils.records(context, "batch-in.DLT")).extracting<String> { text(it.value()) }
                .contains("bad")
            assertThat(committed(context, "batch-in", "batches")).isEqualTo(4)
        }
    }

    @Test
    fun aManualAcknowledgmentFromTheCoroutineOnAnotherThreadCommits() {
        runner.withBean(Manual::class.java).run { context ->
            for (value in listOf("a", "b", "c")) {
                template(context).send("manual-in", value).join()
            }
            KafkoTestUtils.waitForListeners(context, WAIT)
            await().atMost(WAIT).untilAsserted {
                assertThat(committed(context, "manual-in", "manual")).isEqualTo(3)
            }
            assertThat(State.seen).containsExactly("acked a", "acked b", "acked c")
            assertThat(State.ackThreads).`as`("acknowledged off the polling thread").hasSize(3)
                .noneMatch { it.startsWith("manual-") }
        }
    }

    @Test
    fun aNackBeforeTheFirstSuspensionDeliversTheRecordAgain() {
        runner.withBean(Nacking::class.java).run { context ->
            template(context).send("nack-in", "n").join()
            template(context).send("nack-in", "m").join()
            KafkoTestUtils.waitForListeners(context, WAIT)
            await().atMost(WAIT).untilAsserted {
                assertThat(committed(context, "nack-in", "nacking")).isEqualTo(2)
            }
            assertThat(State.seen).containsExactly("nacked n", "acked n", "acked m")
        }
    }

    @Test
    fun aClassLevelListenersSuspendHandlersAreChosenByPayload() {
        runner.withBean(ClassLevel::class.java).run { context ->
            template(context).send("class-in", "hello").join()
            template(context).send("class-in", "k", null).join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(State.seen).containsExactly("text hello", "tombstone k")
            assertThat(committed(context, "class-in", "class-level")).isEqualTo(2)
        }
    }

    /** What the listeners saw; reset before each test. */
    object State {
        val seen: MutableList<String> = CopyOnWriteArrayList()
        val batches: MutableList<List<String>> = CopyOnWriteArrayList()
        val ackThreads: MutableList<String> = CopyOnWriteArrayList()
        private val attempts = ConcurrentHashMap<String, AtomicInteger>()
        @Volatile var started = CountDownLatch(1)
        @Volatile var release = CompletableDeferred<Unit>()

        fun reset() {
            seen.clear()
            batches.clear()
            ackThreads.clear()
            attempts.clear()
            started = CountDownLatch(1)
            release = CompletableDeferred()
        }

        fun attempt(value: String) = attempts.computeIfAbsent(value) { AtomicInteger() }.incrementAndGet()

        fun attempts(value: String) = attempts[value]?.get() ?: 0
    }

    class Gated {
        @KafkoListener(id = "gated", topics = ["gated-in"], ackMode = "record")
        suspend fun on(value: String) {
            State.seen.add("start $value")
            State.started.countDown()
            State.release.await()
            State.seen.add("end $value")
        }
    }

    class Replying {
        @KafkoListener(id = "replying", topics = ["reply-in"])
        @SendTo("reply-out")
        suspend fun on(value: String): String? {
            val polling = Thread.currentThread()
            val where = withContext(Dispatchers.Default) {
                delay(5)
                if (Thread.currentThread() === polling) "on the polling thread" else "on another thread"
            }
            return if (value == "quiet") null else value.uppercase() + " " + where
        }
    }

    class Failing {
        @KafkoListener(id = "failing", topics = ["failing-in"])
        suspend fun on(value: String) {
            State.attempt(value)
            delay(5)
            check(value != "bad") { "cannot handle $value after a suspension" }
        }
    }

    class TimingOut {
        @KafkoListener(id = "timing-out", topics = ["timeout-in"])
        suspend fun on(value: String) {
            State.attempt(value)
            if (value == "slow") {
                withTimeout(10) { awaitCancellation() }
            }
        }
    }

    class Handled {
        @KafkoListener(id = "handled", topics = ["handled-in"], errorHandler = "replyingErrorHandler")
        @SendTo("handled-out")
        suspend fun on(value: String): String {
            State.attempt(value)
            delay(5)
            require(value != "boom") { "boom in a coroutine" }
            return value.uppercase()
        }
    }

    class Batches {
        @KafkoListener(id = "batches", topics = ["batch-in"], batch = "true")
        suspend fun on(values: List<String>) {
            values.forEach { State.attempt(it) }
            delay(5)
            State.batches.add(values)
            check("bad" !in values) { "a bad batch" }
        }
    }

    class Manual {
        @KafkoListener(id = "manual", topics = ["manual-in"], ackMode = "manual")
        suspend fun on(value: String, ack: Acknowledgment) {
            // inside the block, for sure on a thread of Dispatchers.Default: after it, the coroutine runs on the polling
            // thread when the block had ended before it suspended
            withContext(Dispatchers.Default) {
                delay(5)
                State.ackThreads.add(Thread.currentThread().name)
                State.seen.add("acked $value")
                ack.acknowledge()
            }
        }
    }

    class Nacking {
        @KafkoListener(id = "nacking", topics = ["nack-in"], ackMode = "manual")
        suspend fun on(value: String, ack: Acknowledgment) {
            if (value == "n" && State.attempt(value) == 1) {
                ack.nack(Duration.ofMillis(10)) // on the polling thread: the coroutine has not suspended yet
                State.seen.add("nacked $value")
                delay(5)
                return
            }
            delay(5)
            State.seen.add("acked $value")
            ack.acknowledge()
        }
    }

    @KafkoListener(id = "class-level", topics = ["class-in"])
    class ClassLevel {
        @KafkoHandler
        suspend fun text(value: String) {
            delay(5)
            State.seen.add("text $value")
        }

        @KafkoHandler
        suspend fun tombstone(@Payload(required = false) nothing: KafkoNull?, @Header(KafkoHeaders.RECEIVED_KEY) key: String) {
            delay(5)
            State.seen.add("tombstone $key")
        }
    }
}
