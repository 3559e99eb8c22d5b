package dev.kafko.internal.io;

import dev.kafko.KafkoStorageException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Internal: the one place that turns an {@link IOException} into kafko's unchecked
 * {@link KafkoStorageException}, naming the operation and the file. Stateless; any thread.
 */
public final class StorageErrors {

    private StorageErrors() {
    }

    /** A storage exception saying that {@code operation} on {@code file} failed, with {@code e} as its cause. */
    public static KafkoStorageException wrap(String operation, Path file, IOException e) {
        String detail = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new KafkoStorageException(operation + " failed on " + file + ": " + detail, e);
    }
}
