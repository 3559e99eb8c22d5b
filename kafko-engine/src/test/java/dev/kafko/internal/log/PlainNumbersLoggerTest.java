package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * {@link PlainNumbersLogger}: offsets, positions and sizes in the engine's log lines are plain digits in every locale,
 * where {@code System.Logger}'s {@code MessageFormat} groups them ({@code 3,996} here, {@code 3.996} in Germany).
 */
class PlainNumbersLoggerTest {

    @Test
    void numbersAreShownAsTheirDigitsWhateverTheLocale() {
        Locale before = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try (CapturedWarnings captured = CapturedWarnings.everyLevelOf(PlainNumbersLoggerTest.class)) {
            System.Logger log = PlainNumbersLogger.of(PlainNumbersLoggerTest.class);
            Object[] params = {"t-0", 12_345_678_901L, 3_996, Path.of("/d/00000000000000000000.log"), 2.5};
            log.log(System.Logger.Level.WARNING, "{0}: offset {1} at position {2} of {3}, {4} MB", params);
            log.log(System.Logger.Level.INFO, "no parameter: {0}");
            log.log(System.Logger.Level.DEBUG, "below the level", new IllegalStateException("kept"));

            assertThat(captured.lines()).containsExactly(
                    "WARNING t-0: offset 12345678901 at position 3996 of /d/00000000000000000000.log, 2.5 MB",
                    "INFO no parameter: {0}", "FINE below the level");
            assertThat(params[1]).as("the caller's array is left as it was").isEqualTo(12_345_678_901L);
            assertThat(log.getName()).isEqualTo(PlainNumbersLoggerTest.class.getName());
            assertThat(log.isLoggable(System.Logger.Level.TRACE)).isTrue();
        } finally {
            Locale.setDefault(before);
        }
    }
}
