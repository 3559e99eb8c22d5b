package dev.kafko;

/**
 * A send found its partition's queue of unwritten sends full ({@link KafkoOptions#maxQueuedBytes()})
 * and no room came within {@link KafkoOptions#maxBlock()}: the partition writes more slowly than its
 * producers send. The records bound for that partition were not sent; its future fails with this
 * exception. The parts of a {@code sendBatch} bound for other partitions may have been written: a batch
 * is atomic per partition.
 */
public class BufferExhaustedException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public BufferExhaustedException(String message) {
        super(message);
    }
}
