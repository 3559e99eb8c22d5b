package dev.kafko.kotlin

import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.support.KafkoHeaders
import dev.kafko.spring.test.KafkoTestUtils
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.messaging.handler.annotation.Header
import java.util.concurrent.CopyOnWriteArrayList

/**
 * A listener parameter's default value, as the README says: a `suspend fun` is called through Kotlin reflection, which
 * leaves out an optional parameter whose argument is missing, so its default applies; a plain `fun` is called as from
 * Java (as in spring-kafka) and gets the `null`, refused by Kotlin's own check, retried and dead-lettered.
 */
class DefaultParameterKotlinTest {

    private val runner = deadLetteringRunner(2)

    @BeforeEach
    fun clear() {
        received.clear()
    }

    @Test
    fun aSuspendFunctionTakesTheDefaultOfAMissingHeaderAndAPlainOneIsRefusedTheNull() {
        runner.withBean(Defaults::class.java).run { context ->
            template(context).send("default-suspend", "a").join()
            template(context).send("default-plain", "b").join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(received).containsExactly("a none")
            assertThat(KafkoTestUtils.records(context, "default-plain.DLT")).singleElement().satisfies({ r ->
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                    .isEqualTo(NullPointerException::class.java.name)
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).contains("parameter tag")
            })
        }
    }

    class Defaults {
        @KafkoListener(id = "default-suspend", topics = ["default-suspend"])
        suspend fun suspending(value: String, @Header(name = "tag", required = false) tag: String = "none") {
            withContext(Dispatchers.Default) { delay(1) }
            received.add("$value $tag")
        }

        @KafkoListener(id = "default-plain", topics = ["default-plain"])
        fun plain(value: String, @Header(name = "tag", required = false) tag: String = "none") {
            received.add("$value $tag")
        }
    }

    companion object {
        val received = CopyOnWriteArrayList<String>()
    }
}
