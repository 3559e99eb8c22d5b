package dev.kafko.internal.io;

import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;

/**
 * Internal: the one place that turns an {@link IOException} (or another failure of a file-system call) into kafko's unchecked
 * {@link KafkoStorageException}, naming the operation and the file. Stateless; any thread.
 */
public final class StorageErrors {

    private StorageErrors() {
    }

    /** A storage exception saying that {@code operation} on {@code file} failed, with {@code e} as its cause. */
    public static KafkoStorageException wrap(String operation, Path file, Exception e) {
        // a file-system exception's message is mostly its path: its type says what happened (NoSuchFileException)
        String detail = e.getMessage() == null ? e.getClass().getSimpleName()
                : e instanceof FileSystemException ? e.getClass().getSimpleName() + ": " + e.getMessage()
                : e.getMessage();
        return new KafkoStorageException(operation + " failed on " + file + ": " + detail, e);
    }

    /**
     * {@code e} itself when it is one of kafko's exceptions, else {@link #wrap}: a file-system call that failed
     * in an unexpected way (a {@code RuntimeException} of a channel) still reaches the caller typed.
     */
    public static RuntimeException typed(String operation, Path file, RuntimeException e) {
        return e instanceof KafkoException ? e : wrap(operation, file, e);
    }
}
