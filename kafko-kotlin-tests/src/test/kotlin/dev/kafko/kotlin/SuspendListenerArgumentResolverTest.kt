package dev.kafko.kotlin

import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor
import dev.kafko.spring.listener.adapter.KafkoArgumentResolvers
import dev.kafko.spring.support.KafkoHeaders
import dev.kafko.spring.support.RecordMessageConverter
import dev.kafko.spring.test.KafkoTestUtils
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.core.MethodParameter
import org.springframework.messaging.Message
import org.springframework.messaging.handler.annotation.SendTo
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver
import org.springframework.messaging.support.MessageBuilder

/**
 * An application whose listeners take parameters of its own kinds plugs its argument resolvers into kafko's handler
 * method factory, as a spring-kafka one sets them on its `KafkaMessageHandlerMethodFactory`: suspend functions run
 * with them. A factory of the application's own making (a `DefaultMessageHandlerMethodFactory` with custom resolvers)
 * cannot run suspend functions, whose listeners fail start-up naming the way that can; resolvers set on kafko's
 * factory once it is made, which Spring's factory ignores, are refused.
 */
class SuspendListenerArgumentResolverTest {

    private val runner = deadLetteringRunner(1)

    @Test
    fun aSuspendFunctionRunsWithTheApplicationsOwnArgumentResolversAsAPlainOneDoes() {
        runner.withUserConfiguration(WithTenants::class.java).withBean(TenantListeners::class.java).run { context ->
            template(context).send(
                MessageBuilder.withPayload("hello").setHeader(KafkoHeaders.TOPIC, "tenant-in")
                    .setHeader("tenant", "acme").build(),
            ).join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(KafkoTestUtils.records(context, "tenant-out")).extracting<String> { text(it.value()) }
                .containsExactlyInAnyOrder("suspended: hello for acme", "plain: hello for acme")
        }
    }

    @Test
    fun aSuspendFunctionWithAFactoryOfTheApplicationsOwnMakingFailsStartUpNamingTheFactoryThatTakesResolvers() {
        runner.withBean(TenantListeners::class.java)
            .withBean(
                KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME,
                MessageHandlerMethodFactory::class.java,
                {
                    DefaultMessageHandlerMethodFactory().apply {
                        setCustomArgumentResolvers(listOf(TenantResolver()))
                        afterPropertiesSet()
                    }
                },
            )
            .run { context ->
                assertThat(context).getFailure().hasStackTraceContaining("Listener 'suspended-tenant'")
                    .hasStackTraceContaining("is a Kotlin suspend function, which the handler its")
                    .hasStackTraceContaining("handlerMethodFactory(converter, validator, customResolvers)")
            }
    }

    @Test
    fun resolversSetOnKafkosFactoryOnceMadeAreRefusedNotIgnored() {
        runner.run { context ->
            val made = KafkoArgumentResolvers.handlerMethodFactory(
                context.getBean(RecordMessageConverter::class.java), null,
            ) as DefaultMessageHandlerMethodFactory
            assertThatThrownBy { made.setCustomArgumentResolvers(listOf(TenantResolver())) }
                .isInstanceOf(IllegalStateException::class.java)
                .hasMessageContaining("KafkoArgumentResolvers.handlerMethodFactory(converter, validator, customResolvers)")
            assertThatThrownBy { made.setArgumentResolvers(listOf(TenantResolver())) }
                .isInstanceOf(IllegalStateException::class.java)
                .hasMessageContaining("KafkoArgumentResolvers.handlerMethodFactory(converter, validator, customResolvers)")
        }
    }

    /** A parameter of the application's own kind, which its resolver builds from the record's "tenant" header. */
    data class Tenant(val name: String)

    class TenantResolver : HandlerMethodArgumentResolver {
        override fun supportsParameter(parameter: MethodParameter): Boolean = parameter.parameterType == Tenant::class.java

        override fun resolveArgument(parameter: MethodParameter, message: Message<*>): Any =
            Tenant(text(message.headers["tenant"] as ByteArray?) ?: error("no tenant header"))
    }

    @Configuration(proxyBeanMethods = false)
    class WithTenants {
        @Bean(KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME)
        fun kafkoHandlerMethodFactory(converter: RecordMessageConverter): MessageHandlerMethodFactory =
            KafkoArgumentResolvers.handlerMethodFactory(converter, null, listOf(TenantResolver()))
    }

    class TenantListeners {
        @KafkoListener(id = "suspended-tenant", topics = ["tenant-in"])
        @SendTo("tenant-out")
        suspend fun suspended(value: String, tenant: Tenant): String = "suspended: $value for ${tenant.name}"

        @KafkoListener(id = "plain-tenant", topics = ["tenant-in"])
        @SendTo("tenant-out")
        fun plain(value: String, tenant: Tenant): String = "plain: $value for ${tenant.name}"
    }
}
