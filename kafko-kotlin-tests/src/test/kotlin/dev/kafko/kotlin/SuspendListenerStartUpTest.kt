package dev.kafko.kotlin

import dev.kafko.KafkoRecord
import dev.kafko.spring.annotation.KafkoHandler
import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory
import reactor.core.publisher.Flux

/**
 * The suspend functions kafko cannot run fail start-up, naming the listener, instead of failing every record: one
 * whose result may hold many values (a `Flow`, a `Flux`: one record has one result), and any where the application's
 * own `MessageHandlerMethodFactory` makes the handler (a plain one passed the compiler's `Continuation` parameter the
 * payload). Without kotlinx-coroutines-reactor or kotlin-reflect on the class path a suspend function fails start-up
 * naming them: `KafkoAutoConfigurationTest`, in the starter, whose tests have neither.
 */
class SuspendListenerStartUpTest {

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
        .withPropertyValues("kafko.ephemeral=true")

    @Test
    fun aSuspendFunctionReturningAFlowFailsStartUp() {
        runner.withBean(Flowing::class.java).run { context ->
            assertThat(context).getFailure().hasStackTraceContaining(
                "@KafkoListener 'flowing' on Flowing.on is a suspend function returning a"
                    + " kotlinx.coroutines.flow.Flow, which may hold many values",
            )
        }
        runner.withBean(Fluxing::class.java).run { context ->
            assertThat(context).getFailure().hasStackTraceContaining(
                "@KafkoListener 'fluxing' on Fluxing.on is a suspend function returning a reactor.core.publisher.Flux",
            )
        }
    }

    @Test
    fun aSuspendFunctionWhoseHandlerAnotherFactoryMakesFailsStartUp() {
        runner.withBean(Plain::class.java)
            .withBean(
                KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME,
                MessageHandlerMethodFactory::class.java,
                { DefaultMessageHandlerMethodFactory().apply { afterPropertiesSet() } },
            )
            .run { context ->
                assertThat(context).getFailure().hasStackTraceContaining("Listener 'plain'")
                    .hasStackTraceContaining("is a Kotlin suspend function, which the handler its")
            }
    }

    @Test
    fun aSuspendFunctionReturningOneValueStarts() {
        runner.withBean(Plain::class.java).run { context -> assertThat(context).hasNotFailed() }
    }

    @Test
    fun aSuspendHandlerThatTakesOnlyTheRecordHasNoPayloadAsAPlainOneHasNone() {
        // taken for their payload, the continuations of two such handlers made them a tie: start-up refused them
        runner.withBean(RecordHandlers::class.java).run { context -> assertThat(context).hasNotFailed() }
    }

    @KafkoListener(id = "record-handlers", topics = ["record-handlers"])
    class RecordHandlers {
        @KafkoHandler
        suspend fun text(value: String) {
        }

        @KafkoHandler
        suspend fun first(record: KafkoRecord) {
        }

        @KafkoHandler
        suspend fun second(record: KafkoRecord) {
        }
    }

    class Flowing {
        @KafkoListener(id = "flowing", topics = ["flowing"])
        suspend fun on(value: String): Flow<String> = flowOf(value, value)
    }

    class Fluxing {
        @KafkoListener(id = "fluxing", topics = ["fluxing"])
        suspend fun on(value: String): Flux<String> = Flux.just(value, value)
    }

    class Plain {
        @KafkoListener(id = "plain", topics = ["plain"])
        suspend fun on(value: String): String = value
    }
}
