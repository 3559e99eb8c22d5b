package dev.kafko;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The ordered headers of a record. Keys may repeat; order is kept on disk and on read. The list is
 * immutable ({@link #with(String, byte[])} returns a new instance); each {@link Header} holds the value
 * array it was given, which a producer copies when the record is sent.
 */
public final class Headers implements Iterable<Header> {

    private static final Headers EMPTY = new Headers(new Header[0]);

    private final Header[] headers;

    private Headers(Header[] headers) {
        this.headers = headers;
    }

    /** No headers. */
    public static Headers empty() {
        return EMPTY;
    }

    /**
     * These headers, in this order.
     *
     * @throws NullPointerException when {@code headers} or one of them is {@code null}
     */
    public static Headers of(Header... headers) {
        Objects.requireNonNull(headers, "headers");
        if (headers.length == 0) {
            return EMPTY;
        }
        return new Headers(noNulls(headers.clone()));
    }

    /**
     * These headers, in list order.
     *
     * @throws NullPointerException when {@code headers} or one of them is {@code null}
     */
    public static Headers of(List<Header> headers) {
        Objects.requireNonNull(headers, "headers");
        if (headers.isEmpty()) {
            return EMPTY;
        }
        return new Headers(noNulls(headers.toArray(new Header[0])));
    }

    private static Header[] noNulls(Header[] headers) {
        for (int i = 0; i < headers.length; i++) {
            if (headers[i] == null) {
                throw new NullPointerException("headers[" + i + "] is null");
            }
        }
        return headers;
    }

    /** One header. */
    public static Headers of(String key, byte @Nullable [] value) {
        return new Headers(new Header[] {new Header(key, value)});
    }

    /** These headers followed by one more. */
    public Headers with(String key, byte @Nullable [] value) {
        Header[] copy = Arrays.copyOf(headers, headers.length + 1);
        copy[headers.length] = new Header(key, value);
        return new Headers(copy);
    }

    /** The last header with this key, or {@code null}. */
    public @Nullable Header lastHeader(String key) {
        Objects.requireNonNull(key, "key");
        for (int i = headers.length - 1; i >= 0; i--) {
            if (headers[i].key().equals(key)) {
                return headers[i];
            }
        }
        return null;
    }

    /** The value of the last header with this key, or {@code null} (also when that value is null). */
    public byte @Nullable [] lastValue(String key) {
        Header h = lastHeader(key);
        return h == null ? null : h.value();
    }

    /** Every header with this key, in order. */
    public List<Header> headers(String key) {
        Objects.requireNonNull(key, "key");
        List<Header> out = new ArrayList<>();
        for (Header h : headers) {
            if (h.key().equals(key)) {
                out.add(h);
            }
        }
        return out;
    }

    /** The header at {@code index}. */
    public Header get(int index) {
        return headers[index];
    }

    public int size() {
        return headers.length;
    }

    public boolean isEmpty() {
        return headers.length == 0;
    }

    /** The headers as an unmodifiable list. */
    public List<Header> asList() {
        return Collections.unmodifiableList(Arrays.asList(headers));
    }

    @Override
    public Iterator<Header> iterator() {
        return asList().iterator();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Headers h && Arrays.equals(headers, h.headers);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(headers);
    }

    @Override
    public String toString() {
        return Arrays.toString(headers);
    }
}
