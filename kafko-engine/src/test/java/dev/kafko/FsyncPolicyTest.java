package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FsyncPolicyTest {

    @ParameterizedTest
    @CsvSource({
        "interval:100ms, PT0.1S",
        "interval:500us, PT0.0005S",
        "interval:250000ns, PT0.00025S",
        "interval:5s, PT5S",
        "interval:10m, PT10M",
        "interval:1h, PT1H",
        "interval:1d, PT24H",
        "interval:PT0.1S, PT0.1S",
        "INTERVAL:2S, PT2S",
        "interval:250, PT0.25S",
        "interval(3s), PT3S"})
    void intervalsTakeSpringsSimpleDurationsIsoAndBareMillis(String text, Duration expected) {
        assertThat(FsyncPolicy.parse(text)).isEqualTo(FsyncPolicy.interval(expected));
    }

    @ParameterizedTest
    @ValueSource(strings = {"interval:", "interval:ms", "interval:5x", "interval:1.5s", "sometimes"})
    void anythingElseIsAConfigErrorThatQuotesTheText(String text) {
        assertThatThrownBy(() -> FsyncPolicy.parse(text)).isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining(text);
    }

    @ParameterizedTest
    @CsvSource({"never, NEVER", "every-batch, EVERY_BATCH", "every_batch, EVERY_BATCH"})
    void namedPolicies(String text, String constant) throws Exception {
        assertThat(FsyncPolicy.parse(text)).isSameAs(FsyncPolicy.class.getField(constant).get(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"interval:106751991168d", "interval:9223372036854775807s"})
    void anIntervalBeyondTheLongestDurationIsKeptAsItAndRoundTrips(String text, @org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) {
        FsyncPolicy huge = FsyncPolicy.parse(text);
        assertThat(huge).isEqualTo(FsyncPolicy.interval(TopicConfig.MAX_DURATION));
        assertThat(FsyncPolicy.parse(huge.toString())).isEqualTo(huge);
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().fsync(huge).build());
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().config().fsync()).isEqualTo(huge);
        }
    }
}
