package dev.kafko.kotlin

import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.listener.KafkoListenerErrorHandler
import dev.kafko.spring.test.KafkoTestUtils
import kotlinx.coroutines.reactor.mono
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.messaging.handler.annotation.SendTo
import reactor.core.publisher.Mono
import java.util.concurrent.CopyOnWriteArrayList

/**
 * Kotlin's `Unit` is no result: a `KafkoListenerErrorHandler` lambda whose last expression is a statement returns it,
 * and so does a `Mono` from a `mono { ... }` block that ends in one. Neither sends anything to the `@SendTo` topic, as
 * `null` does not and a `suspend fun` returning `Unit` does not. Before, `Unit` was sent as the reply: `{}` with
 * Jackson, and without it a conversion failure that sent the record to its dead-letter topic (B279).
 */
class UnitResultKotlinTest {

    private val runner = deadLetteringRunner(3)

    @BeforeEach
    fun reset() {
        seen.clear()
    }

    @Test
    fun anErrorHandlerLambdaThatEndsInAStatementSendsNoReply() {
        runner.withBean(Replying::class.java).withBean("loggingErrorHandler", KafkoListenerErrorHandler::class.java,
            { KafkoListenerErrorHandler { _, e -> seen += "handled " + e.cause!!.message } })
            .run { context ->
                template(context).send("unit-in", "boom").join()
                template(context).send("unit-in", "fine").join()
                KafkoTestUtils.waitForListeners(context, WAIT)

                assertThat(seen).containsExactly("handled boom")
                assertThat(KafkoTestUtils.records(context, "unit-out")).extracting<String> { text(it.value()) }
                    .`as`("the reply of the record that succeeded only").containsExactly("FINE")
                assertThat(KafkoTestUtils.records(context, "unit-in.DLT")).`as`("no reply failed").isEmpty()
                assertThat(committed(context, "unit-in", "unit-replying")).isEqualTo(2)
            }
    }

    @Test
    fun aMonoOfUnitSendsNoReply() {
        runner.withBean(MonoOfUnit::class.java).run { context ->
            template(context).send("mono-in", "quiet").join()
            template(context).send("mono-in", "loud").join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(seen).containsExactly("quiet")
            assertThat(KafkoTestUtils.records(context, "mono-out")).extracting<String> { text(it.value()) }
                .`as`("the reply of the record whose Mono held a value only").containsExactly("LOUD")
            assertThat(KafkoTestUtils.records(context, "mono-in.DLT")).`as`("no reply failed").isEmpty()
            assertThat(committed(context, "mono-in", "mono-of-unit")).isEqualTo(2)
        }
    }

    class Replying {
        @KafkoListener(id = "unit-replying", topics = ["unit-in"], errorHandler = "loggingErrorHandler")
        @SendTo("unit-out")
        fun on(value: String): String {
            check(value != "boom") { value }
            return value.uppercase()
        }
    }

    class MonoOfUnit {
        @KafkoListener(id = "mono-of-unit", topics = ["mono-in"])
        @SendTo("mono-out")
        fun on(value: String): Mono<Any> = mono {
            if (value == "quiet") {
                seen += value
            } else {
                value.uppercase()
            }
        }
    }

    companion object {
        val seen: MutableList<String> = CopyOnWriteArrayList()
    }
}
