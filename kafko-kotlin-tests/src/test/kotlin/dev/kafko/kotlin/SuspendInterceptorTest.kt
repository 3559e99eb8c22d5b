package dev.kafko.kotlin

import dev.kafko.KafkoRecord
import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.listener.RecordInterceptor
import dev.kafko.spring.test.KafkoTestUtils
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import java.util.concurrent.CopyOnWriteArrayList

/**
 * A [RecordInterceptor] around a `suspend fun` listener hears of its outcome once the coroutine finished, after it
 * resumed on another thread: `success` or `failure` (with what it threw) per attempt, each followed by `afterRecord`.
 */
class SuspendInterceptorTest {

    @Test
    fun successAndFailureComeOnceTheCoroutineFinished() {
        EVENTS.clear()
        deadLetteringRunner(2).withBean(Suspending::class.java)
            .withBean(RecordInterceptor::class.java, { Recording() })
            .run { context ->
                template(context).send("suspending-in", "a").join()
                template(context).send("suspending-in", "bad").join()
                KafkoTestUtils.waitForListeners(context, WAIT)

                assertThat(EVENTS).containsExactly(
                    "intercept a", "start a", "end a", "success a", "after a",
                    "intercept bad", "start bad", "end bad", "failure bad: cannot handle bad", "after bad",
                    "intercept bad", "start bad", "end bad", "failure bad: cannot handle bad", "after bad",
                )
                assertThat(committed(context, "suspending-in", "suspending")).isEqualTo(2)
            }
    }

    class Recording : RecordInterceptor {
        override fun intercept(record: KafkoRecord): KafkoRecord {
            EVENTS.add("intercept " + text(record.value()))
            return record
        }

        override fun success(record: KafkoRecord) {
            EVENTS.add("success " + text(record.value()))
        }

        override fun failure(record: KafkoRecord, exception: Exception) {
            var cause: Throwable = exception
            while (cause.cause != null) {
                cause = cause.cause!!
            }
            EVENTS.add("failure " + text(record.value()) + ": " + cause.message)
        }

        override fun afterRecord(record: KafkoRecord) {
            EVENTS.add("after " + text(record.value()))
        }
    }

    class Suspending {
        @KafkoListener(id = "suspending", topics = ["suspending-in"], groupId = "suspending")
        suspend fun on(value: String) {
            EVENTS.add("start $value")
            withContext(Dispatchers.Default) {
                EVENTS.add("end $value") // on a thread of the coroutine's dispatcher
                check(value != "bad") { "cannot handle $value" }
            }
        }
    }

    companion object {
        val EVENTS: MutableList<String> = CopyOnWriteArrayList()
    }
}
