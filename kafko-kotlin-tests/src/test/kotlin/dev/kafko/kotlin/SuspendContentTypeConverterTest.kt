package dev.kafko.kotlin

import dev.kafko.Header
import dev.kafko.Headers
import dev.kafko.Kafko
import dev.kafko.OutgoingRecord
import dev.kafko.kotlin.SuspendListenerArgumentResolverTest.Tenant
import dev.kafko.kotlin.SuspendListenerArgumentResolverTest.WithTenants
import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.test.KafkoTestUtils
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.messaging.Message
import org.springframework.messaging.converter.AbstractMessageConverter
import org.springframework.messaging.converter.SmartMessageConverter
import org.springframework.messaging.handler.annotation.SendTo
import org.springframework.util.MimeType

/**
 * A Kotlin suspend listener with a `contentTypeConverter` converts its payload through it, with the application's
 * own argument resolvers still asked for its other parameters, as a plain listener does.
 */
class SuspendContentTypeConverterTest {

    @Test
    fun aSuspendListenersPayloadGoesThroughItsConverterWithTheApplicationsResolversKept() {
        deadLetteringRunner(1).withUserConfiguration(WithTenants::class.java)
            .withBean("upper", SmartMessageConverter::class.java, { Upper() })
            .withBean(Listeners::class.java).run { context ->
                val headers = Headers.of(
                    Header.of("contentType", "application/x-upper"),
                    Header.of("tenant", "acme"),
                )
                context.getBean(Kafko::class.java).producer("ctk-in")
                    .send(OutgoingRecord.of(null, "loud".toByteArray(), headers)).join()
                KafkoTestUtils.waitForListeners(context, WAIT)

                assertThat(KafkoTestUtils.records(context, "ctk-out")).extracting<String> { text(it.value()) }
                    .containsExactlyInAnyOrder("suspended: LOUD for acme", "plain: LOUD for acme")
                assertThat(KafkoTestUtils.records(context, "ctk-in.DLT")).isEmpty()
            }
    }

    /** Reads `application/x-upper` Strings only, in upper case. */
    class Upper : AbstractMessageConverter(MimeType("application", "x-upper")) {
        init {
            isStrictContentTypeMatch = true
        }

        override fun supports(clazz: Class<*>): Boolean = clazz == String::class.java

        override fun convertFromInternal(message: Message<*>, targetClass: Class<*>, conversionHint: Any?): Any =
            (message.payload as ByteArray).toString(Charsets.UTF_8).uppercase()
    }

    class Listeners {
        @KafkoListener(id = "ctk-suspended", topics = ["ctk-in"], contentTypeConverter = "upper")
        @SendTo("ctk-out")
        suspend fun suspended(value: String, tenant: Tenant): String = "suspended: $value for ${tenant.name}"

        @KafkoListener(id = "ctk-plain", topics = ["ctk-in"], contentTypeConverter = "upper")
        @SendTo("ctk-out")
        fun plain(value: String, tenant: Tenant): String = "plain: $value for ${tenant.name}"
    }
}
