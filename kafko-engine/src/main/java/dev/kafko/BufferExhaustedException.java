package dev.kafko;

/**
 * A send found its partition's queue of unwritten sends full ({@link KafkoOptions#maxQueuedBytes()})
 * and no room came within {@link KafkoOptions#maxBlock()}: the partition writes more slowly than its
 * producers send. The record was not sent; its future fails with this exception.
 */
public class BufferExhaustedException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public BufferExhaustedException(String message) {
        super(message);
    }
}
