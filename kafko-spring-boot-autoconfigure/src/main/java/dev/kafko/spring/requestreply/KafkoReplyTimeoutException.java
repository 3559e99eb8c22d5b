package dev.kafko.spring.requestreply;

import dev.kafko.KafkoException;

/** No reply to a {@link ReplyingKafkoTemplate} request came within its timeout. */
public class KafkoReplyTimeoutException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public KafkoReplyTimeoutException(String message) {
        super(message);
    }
}
