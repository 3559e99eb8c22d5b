package dev.kafko.spring.core;

import dev.kafko.Headers;
import dev.kafko.RecordPosition;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** Sends to one topic of a {@link LogBackend}. Thread-safe. */
public interface BackendProducer {

    String topic();

    /**
     * Appends one record: to {@code partition} when given, else to the key's partition (or
     * round-robin for a null key).
     *
     * @param timestamp epoch millis
     */
    CompletableFuture<RecordPosition> send(@Nullable Integer partition, byte @Nullable [] key,
                                           byte @Nullable [] value, Headers headers, long timestamp);

    /** Returns once every send made before the call is written and its future completed. */
    void flush();
}
