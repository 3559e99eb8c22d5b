package dev.kafko.kotlin

import dev.kafko.Headers
import dev.kafko.Kafko
import dev.kafko.KafkoRecord
import dev.kafko.OutgoingRecord
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration
import dev.kafko.spring.core.KafkoTemplate
import dev.kafko.spring.test.KafkoConditions.header
import dev.kafko.spring.test.KafkoConditions.key
import dev.kafko.spring.test.KafkoConditions.keyValue
import dev.kafko.spring.test.KafkoConditions.partition
import dev.kafko.spring.test.KafkoConditions.value
import dev.kafko.spring.test.KafkoMatchers.hasKey
import dev.kafko.spring.test.KafkoMatchers.hasPartition
import dev.kafko.spring.test.KafkoMatchers.hasValue
import dev.kafko.spring.test.KafkoTestUtils
import org.assertj.core.api.Assertions.allOf
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.hamcrest.MatcherAssert
import org.hamcrest.Matchers.contains
import org.hamcrest.Matchers.everyItem
import org.hamcrest.Matchers.hasItem
import org.hamcrest.Matchers.not
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.time.Duration

/**
 * `KafkoConditions` and `KafkoMatchers` from Kotlin, as a ported spring-kafka-test suite uses them: on the
 * `KafkoRecord?` that `KafkoTemplate.receive` returns (B256: the conditions were of a non-null record, which Kotlin
 * refused for it) and on the records `KafkoTestUtils.records` returns.
 */
class RecordConditionsKotlinTest {

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration::class.java))
        .withPropertyValues("kafko.ephemeral=true", "kafko.topics[orders].partitions=2")

    @Test
    fun aReceivedRecordAndTheRecordsOfATopic() {
        runner.run { context ->
            @Suppress("UNCHECKED_CAST")
            val template = context.getBean(KafkoTemplate::class.java) as KafkoTemplate<Any, Any>
            template.send("orders", 1, "o-1", "paid").join()
            context.getBean(Kafko::class.java).producer("orders").sendTo(
                1, OutgoingRecord.of(null, "open".toByteArray(), Headers.of("source", "web".toByteArray())),
            ).join()

            val received: KafkoRecord? = template.receive("orders", 1, 0)
            assertThat(received).has(key("o-1")).has(value("paid")).has(partition(1)).`is`(keyValue("o-1", "paid"))
            assertThat(template.receive("orders", 1, 2, Duration.ofMillis(50))).`as`("none there")
                .doesNotHave(key(null as String?))
            assertThatThrownBy { assertThat(received).has(key("o-2")) }
                .hasMessageContaining("a record with key \"o-2\"")
            MatcherAssert.assertThat(received, hasKey("o-1"))

            val records = KafkoTestUtils.records(context, "orders")
            assertThat(records).haveExactly(1, allOf(key("o-1"), partition(1))).areAtLeast(2, partition(1))
                .haveAtLeastOne(header("source", "web"))
            MatcherAssert.assertThat(records, hasItem(hasValue("open")))
            MatcherAssert.assertThat(records, everyItem(hasPartition(1)))
            MatcherAssert.assertThat(records, contains(hasKey("o-1"), not(hasKey("o-1"))))
        }
    }
}
