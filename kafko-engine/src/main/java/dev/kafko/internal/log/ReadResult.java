package dev.kafko.internal.log;

import dev.kafko.KafkoRecord;
import java.util.List;

/**
 * Internal: the records one read returned.
 *
 * @param records the records, in offset order, starting exactly at the requested offset
 * @param nextOffset the offset to read next (the requested one when {@code records} is empty)
 */
public record ReadResult(List<KafkoRecord> records, long nextOffset) {
}
