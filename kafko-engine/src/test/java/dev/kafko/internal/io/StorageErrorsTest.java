package dev.kafko.internal.io;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionFailedException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A storage error names the operation, the file and what happened, with the original failure as its cause. */
class StorageErrorsTest {

    private final Path file = Path.of("/data/orders/0/00000000000000000000.index");

    @Test
    void aFileSystemExceptionIsNamedByItsTypeSinceItsMessageIsOnlyAPath() {
        NoSuchFileException cause = new NoSuchFileException(file + ".tmp");
        KafkoStorageException e = StorageErrors.wrap("write index", file, cause);
        assertThat(e).hasMessage("write index failed on " + file + ": NoSuchFileException: " + file + ".tmp")
                .hasCause(cause);
    }

    @Test
    void anIOExceptionKeepsItsMessageAndOneWithoutAMessageIsNamedByItsType() {
        assertThat(StorageErrors.wrap("append", file, new IOException("No space left on device")))
                .hasMessage("append failed on " + file + ": No space left on device");
        assertThat(StorageErrors.wrap("append", file, new IOException()))
                .hasMessage("append failed on " + file + ": IOException");
    }

    @Test
    void kafkosOwnExceptionsPassTypedAndOthersAreWrapped() {
        KafkoException own = new PartitionFailedException("orders-0 failed", new IOException("disk"));
        assertThat(StorageErrors.typed("flush", file, own)).isSameAs(own);
        IllegalStateException channel = new IllegalStateException("channel closed");
        assertThat(StorageErrors.typed("flush", file, channel)).isInstanceOf(KafkoStorageException.class)
                .hasMessage("flush failed on " + file + ": channel closed").hasCause(channel);
    }
}
