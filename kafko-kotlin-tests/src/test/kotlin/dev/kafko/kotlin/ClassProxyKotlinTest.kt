package dev.kafko.kotlin

import dev.kafko.spring.annotation.KafkoListener
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration
import dev.kafko.spring.test.KafkoTestUtils
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import org.aopalliance.intercept.MethodInterceptor
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.aop.Advisor
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator
import org.springframework.aop.support.DefaultPointcutAdvisor
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import java.util.concurrent.CopyOnWriteArrayList

/**
 * A Kotlin function is final unless declared `open`, also in an `open` class. Behind a class proxy made before
 * kafko's post-processor sees the bean (the auto-proxy creators of `@Transactional` and aspects run first), such a
 * listener cannot be passed on by the proxy: called on the proxy, it ran on the proxy's own fields, never set (its
 * constructor's `val`s null), for plain and suspend functions alike. It is called on the bean beneath, as one behind
 * a later proxy is; an `open` one keeps the advice.
 */
class ClassProxyKotlinTest {

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
        .withUserConfiguration(EarlyProxy::class.java)
        .withPropertyValues("kafko.ephemeral=true")

    @BeforeEach
    fun clear() {
        received.clear()
        advised.clear()
    }

    @Test
    fun aFinalListenerBehindAnEarlyClassProxyRunsOnTheBeanNotTheFieldlessProxy() {
        runner.run { context ->
            assertThat(context).hasNotFailed()
            assertThat(context.getBean(Proxied::class.java).javaClass.name).contains("SpringCGLIB")
            template(context).send("final-plain", "a").join()
            template(context).send("final-suspend", "b").join()
            template(context).send("open-plain", "c").join()
            KafkoTestUtils.waitForListeners(context, WAIT)

            assertThat(received).containsExactlyInAnyOrder("plain prefix:a", "suspend prefix:b", "open prefix:c")
            assertThat(advised).`as`("the open function keeps the proxy's advice").containsExactly("open")
        }
    }

    @Target(AnnotationTarget.CLASS)
    @Retention(AnnotationRetention.RUNTIME)
    annotation class Traced

    @Traced
    open class Proxied(private val prefix: String) {
        @KafkoListener(id = "final-plain", topics = ["final-plain"])
        fun plain(value: String) {
            received.add("plain $prefix$value")
        }

        @KafkoListener(id = "final-suspend", topics = ["final-suspend"])
        suspend fun suspending(value: String) {
            withContext(Dispatchers.Default) { delay(1) }
            received.add("suspend $prefix$value")
        }

        @KafkoListener(id = "open-plain", topics = ["open-plain"])
        open fun open(value: String) {
            received.add("open $prefix$value")
        }
    }

    @Configuration(proxyBeanMethods = false)
    open class EarlyProxy {
        @Bean
        open fun proxied() = Proxied("prefix:")

        @Bean
        open fun traced(): Advisor = DefaultPointcutAdvisor(AnnotationMatchingPointcut(Traced::class.java, true),
            MethodInterceptor { invocation -> advised.add(invocation.method.name); invocation.proceed() })

        companion object {
            /** As Boot's auto-proxy creator: class proxies, made before kafko's post-processor sees the bean. */
            @Bean
            @JvmStatic
            fun autoProxy() = DefaultAdvisorAutoProxyCreator().apply { isProxyTargetClass = true }
        }
    }

    companion object {
        val received = CopyOnWriteArrayList<String>()
        val advised = CopyOnWriteArrayList<String>()
    }
}
