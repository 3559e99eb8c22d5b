package dev.kafko;

/** Data on disk failed its checks (CRC, magic, bounds or decompression limits); the message names the file and position. */
public class CorruptLogException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public CorruptLogException(String message) {
        super(message);
    }

    public CorruptLogException(String message, Throwable cause) {
        super(message, cause);
    }
}
