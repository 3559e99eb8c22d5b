package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.KafkoOptions;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An open that fails on one topic closes the topics it opened before; when that close fails too (a full disk
 * fails both), the caller still gets what failed the open, with the close's failure suppressed in it.
 */
class FailedOpenReportTest {

    @TempDir
    Path dir;

    @Test
    void theFailureOfTheOpenIsThrownAndTheCloseAfterItIsSuppressedInIt() throws IOException {
        try (Broker b = Broker.open(dir, KafkoOptions.DEFAULTS, FileIo.SYSTEM)) {
            b.createTopic("a");
            b.createTopic("z");
            b.producer("a").send(null, new byte[] {1}).join();
            b.producer("z").send(null, new byte[] {1}).join();
        }
        // topic a as a crash leaves it: its open recovers it, and its close writes its index files again
        java.nio.file.Files.delete(dir.resolve("a").resolve("0").resolve(dev.kafko.internal.io.FileNames.CLEAN_SHUTDOWN_FILE));
        AtomicBoolean openFailed = new AtomicBoolean();
        FileIo io = new FileIo() {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                if (path.startsWith(dir.resolve("z").resolve("0"))) {
                    openFailed.set(true);
                    throw new IOException("injected: cannot open " + path);
                }
                return FileIo.SYSTEM.open(path, options);
            }

            @Override
            public void atomicMove(Path source, Path target) throws IOException {
                failAfterTheOpen(source);
                FileIo.SYSTEM.atomicMove(source, target);
            }

            @Override
            public void deleteIfExists(Path path) throws IOException {
                failAfterTheOpen(path);
                FileIo.SYSTEM.deleteIfExists(path);
            }

            @Override
            public void fsyncDirectory(Path d) throws IOException {
                failAfterTheOpen(d);
                FileIo.SYSTEM.fsyncDirectory(d);
            }

            private void failAfterTheOpen(Path path) throws IOException {
                if (openFailed.get()) {
                    throw new IOException("injected: the close cannot write " + path);
                }
            }
        };
        Throwable failure = catchThrowable(() -> Broker.open(dir, KafkoOptions.DEFAULTS, io).close());
        assertThat(failure).as("what failed the open").isNotNull().hasStackTraceContaining("injected: cannot open");
        assertThat(failure.getMessage()).contains("z");
        assertThat(failure.getSuppressed()).as("the close of topic a after it").singleElement()
                .satisfies(s -> assertThat(s).hasStackTraceContaining("injected: the close cannot write"));
        // nothing stays locked: the directory opens again once the disk works
        Broker.open(dir, KafkoOptions.DEFAULTS, FileIo.SYSTEM).close();
    }
}
