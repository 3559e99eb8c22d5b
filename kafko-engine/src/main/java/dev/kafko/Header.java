package dev.kafko;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One record header: a non-null string key and a value that may be {@code null}. The header holds the
 * array it is given, which the caller may reuse once the send returns (see {@link OutgoingRecord}).
 *
 * @param key the header name
 * @param value the header bytes, or {@code null}
 */
public record Header(String key, byte @Nullable [] value) {

    public Header {
        Objects.requireNonNull(key, "header key");
    }

    /** A header whose value is the UTF-8 bytes of {@code value}, or {@code null} for a {@code null} value. */
    public static Header of(String key, @Nullable String value) {
        return new Header(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** The value decoded as UTF-8, or {@code null}. */
    public @Nullable String valueAsString() {
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Header h && key.equals(h.key) && Arrays.equals(value, h.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return key + "=" + (value == null ? "null" : value.length + " bytes");
    }
}
