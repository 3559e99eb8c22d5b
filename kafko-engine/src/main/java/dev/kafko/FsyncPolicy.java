package dev.kafko;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Objects;

/**
 * When a partition forces its appends to stable storage.
 *
 * <ul>
 *   <li>{@link #NEVER} (default): a completed send is in the operating system's page cache. It
 *       survives a crash of the JVM ({@code kill -9}); it may be lost on power loss or a kernel
 *       crash. Rolled segments (at their roll) and {@code close()} are still fsynced; with
 *       {@link KafkoOptions#fsyncMetadata()} false, rolled segments are fsynced at {@code close()}, and with
 *       {@link KafkoOptions#durableClose()} false, {@code close()} fsyncs nothing (so, with both false, as the
 *       starter's {@code kafko.ephemeral} sets them, nothing is ever fsynced).
 *   <li>{@link #EVERY_BATCH}: a send completes only after an {@code fdatasync} that covers it. One
 *       fsync covers every append waiting at that moment (group commit).
 *   <li>{@link #interval(Duration)}: appends complete at page-cache speed and the partition is
 *       fsynced at most this long after an append.
 * </ul>
 */
public sealed interface FsyncPolicy {

    /** Never fsync on the append path; rely on the page cache. */
    FsyncPolicy NEVER = new Never();

    /** Fsync before completing each (group-committed) append. */
    FsyncPolicy EVERY_BATCH = new EveryBatch();

    /**
     * Fsync at most {@code period} after an append; a period beyond {@link TopicConfig#MAX_DURATION} is
     * kept as it (about 292 million years), as {@link TopicConfig} keeps its durations.
     *
     * @throws InvalidConfigException when {@code period} is zero or negative
     */
    static FsyncPolicy interval(Duration period) {
        return new Interval(period);
    }

    /**
     * Parses {@code never}, {@code every-batch} (or {@code every_batch}) and {@code interval:<duration>}
     * where the duration is ISO-8601 ({@code PT0.1S}) or a number with {@code ns}, {@code us},
     * {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} (Spring's simple form), for example
     * {@code interval:100ms}; a bare number is milliseconds.
     *
     * @throws InvalidConfigException when the text is none of these
     */
    static FsyncPolicy parse(String text) {
        Objects.requireNonNull(text, "fsync policy");
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("never")) {
            return NEVER;
        }
        if (t.equals("every-batch") || t.equals("every_batch")) {
            return EVERY_BATCH;
        }
        if (t.startsWith("interval:") || t.startsWith("interval(")) {
            String d = t.substring("interval".length() + 1).replace(")", "").trim();
            return interval(parseDuration(d, text));
        }
        throw new InvalidConfigException("fsync policy '" + text
                + "' is not one of never, every-batch, interval:<duration> (for example interval:100ms)");
    }

    private static Duration parseDuration(String d, String original) {
        // the units of the simple form, two-letter suffixes first (so that "ms" is not read as "s")
        String[] units = {"ns", "us", "ms", "s", "m", "h", "d"};
        ChronoUnit[] chronoUnits = {ChronoUnit.NANOS, ChronoUnit.MICROS, ChronoUnit.MILLIS, ChronoUnit.SECONDS,
            ChronoUnit.MINUTES, ChronoUnit.HOURS, ChronoUnit.DAYS};
        try {
            if (d.startsWith("p")) {
                return Duration.parse(d.toUpperCase(Locale.ROOT));
            }
            for (int i = 0; i < units.length; i++) {
                String unit = units[i];
                if (d.endsWith(unit) && (unit.length() == 2 || !Character.isLetter(d.charAt(d.length() - 2)))) {
                    return Duration.of(Long.parseLong(d.substring(0, d.length() - unit.length()).trim()), chronoUnits[i]);
                }
            }
            return Duration.ofMillis(Long.parseLong(d));
        } catch (RuntimeException e) {
            throw new InvalidConfigException("fsync policy '" + original + "' has an unreadable duration '" + d
                    + "' (use a number with ns, us, ms, s, m, h or d, or ISO-8601 such as PT0.1S)", e);
        }
    }

    /** See {@link FsyncPolicy#NEVER}. */
    record Never() implements FsyncPolicy {
        @Override
        public String toString() {
            return "never";
        }
    }

    /** See {@link FsyncPolicy#EVERY_BATCH}. */
    record EveryBatch() implements FsyncPolicy {
        @Override
        public String toString() {
            return "every-batch";
        }
    }

    /** See {@link FsyncPolicy#interval(Duration)}. */
    record Interval(Duration period) implements FsyncPolicy {
        public Interval {
            Objects.requireNonNull(period, "period");
            if (period.isNegative() || period.isZero()) {
                throw new InvalidConfigException("fsync interval must be positive, was " + period);
            }
            if (period.compareTo(TopicConfig.MAX_DURATION) > 0) {
                period = TopicConfig.MAX_DURATION; // its milliseconds must fit a long: toString and the config file
            }
        }

        /**
         * {@code interval:<n>ms} for a whole number of milliseconds, else the period in ISO-8601
         * ({@code interval:PT0.0005S}): {@link #parse} reads either back.
         */
        @Override
        public String toString() {
            return period.getNano() % 1_000_000 == 0 ? "interval:" + period.toMillis() + "ms" : "interval:" + period;
        }
    }
}
