package dev.kafko.kotlin

import dev.kafko.Kafko
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration
import dev.kafko.spring.core.KafkoTemplate
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import java.time.Duration

/** How long a test waits for its listeners; they normally need milliseconds. */
val WAIT: Duration = Duration.ofSeconds(20)

/**
 * A context of the auto-configuration on an ephemeral log whose listeners try a record [attempts] times, then
 * publish it to its dead-letter topic.
 */
fun deadLetteringRunner(attempts: Int): ApplicationContextRunner = ApplicationContextRunner()
    .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
    .withPropertyValues(
        "kafko.ephemeral=true", "kafko.listener.retry.max-attempts=$attempts",
        "kafko.listener.dead-letter.enabled=true",
    )

@Suppress("UNCHECKED_CAST")
fun template(context: ApplicationContext): KafkoTemplate<Any, Any> =
    context.getBean(KafkoTemplate::class.java) as KafkoTemplate<Any, Any>

/** The offset the group committed on partition 0 of the topic; 0 when it committed none. */
fun committed(context: ApplicationContext, topic: String, group: String): Long =
    context.getBean(Kafko::class.java).groupInfo(topic, group).committed().getOrDefault(0, 0L)

/** Record bytes as UTF-8 text; null for none. */
fun text(bytes: ByteArray?): String? = bytes?.toString(Charsets.UTF_8)
