package dev.kafko;

import org.jspecify.annotations.Nullable;

/** Data on disk failed its checks (CRC, magic, bounds or decompression limits); the message names the file and position. */
public class CorruptLogException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public CorruptLogException(String message) {
        super(message);
    }

    public CorruptLogException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
