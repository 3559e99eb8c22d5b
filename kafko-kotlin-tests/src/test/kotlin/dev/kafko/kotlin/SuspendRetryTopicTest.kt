package dev.kafko.kotlin

import dev.kafko.spring.annotation.BackOff
import dev.kafko.spring.annotation.DltHandler
import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.annotation.RetryableTopic
import dev.kafko.spring.support.KafkoHeaders
import dev.kafko.spring.test.KafkoTestUtils
import kotlinx.coroutines.delay
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.messaging.handler.annotation.Header
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList

/**
 * A `@RetryableTopic` listener that is a suspend function: what its coroutine throws after a suspension sends the
 * record through the retry topics to the dead-letter topic, whose `@DltHandler` may be a suspend function too.
 */
class SuspendRetryTopicTest {

    @BeforeEach
    fun reset() {
        Payments.calls.clear()
    }

    @Test
    fun aCoroutinesFailureGoesThroughTheRetryTopicsToItsSuspendDltHandler() {
        deadLetteringRunner(1).withBean(Payments::class.java).run { context ->
            template(context).send("payments", "never").join()
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30))

            assertThat(Payments.calls).containsExactly(
                "payments:never", "payments-retry:never", "payments-retry:never", "dead payments-dlt:never",
            )
            assertThat(committed(context, "payments-dlt", "payments")).`as`("the DLT handler's record")
                .isEqualTo(1)
        }
    }

    class Payments {
        @RetryableTopic(attempts = "3", backOff = BackOff(delay = 10))
        @KafkoListener(id = "payments", topics = ["payments"])
        suspend fun on(value: String, @Header(KafkoHeaders.RECEIVED_TOPIC) topic: String) {
            calls.add("$topic:$value")
            delay(5)
            throw IllegalStateException("never works")
        }

        @DltHandler
        suspend fun dead(value: String, @Header(KafkoHeaders.RECEIVED_TOPIC) topic: String) {
            delay(5)
            calls.add("dead $topic:$value")
        }

        companion object {
            val calls: MutableList<String> = CopyOnWriteArrayList()
        }
    }
}
