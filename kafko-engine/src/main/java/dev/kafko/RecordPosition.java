package dev.kafko;

/**
 * Where a record was appended.
 *
 * @param partition the partition number
 * @param offset the record's offset within that partition
 */
public record RecordPosition(int partition, long offset) {
}
