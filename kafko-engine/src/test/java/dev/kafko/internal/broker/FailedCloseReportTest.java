package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.FsyncPolicy;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A close that fails throws to its callers, the first and any other, and nothing else: the thread it ran on
 * (kafko-close) does not hand it to the JVM's uncaught-exception handler as a crashed thread, which an
 * application's default handler may answer with an alert or an exit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailedCloseReportTest {

    @TempDir
    Path dir;

    @Test
    void aFailedCloseIsReportedToItsCallerOnlyNotAsAnUncaughtException() throws Exception {
        AtomicBoolean failing = new AtomicBoolean();
        FileIo io = new FileIo() {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                if (failing.get()) {
                    throw new IOException("injected: cannot open " + path);
                }
                return FileIo.SYSTEM.open(path, options);
            }

            @Override
            public void atomicMove(Path source, Path target) throws IOException {
                if (failing.get()) {
                    throw new IOException("injected: cannot move " + source);
                }
                FileIo.SYSTEM.atomicMove(source, target);
            }

            @Override
            public void deleteIfExists(Path path) throws IOException {
                FileIo.SYSTEM.deleteIfExists(path);
            }

            @Override
            public void fsyncDirectory(Path d) throws IOException {
                if (failing.get()) {
                    throw new IOException("injected: cannot fsync " + d);
                }
                FileIo.SYSTEM.fsyncDirectory(d);
            }
        };
        List<String> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(t.getName() + ": " + e));
        try {
            Broker b = Broker.open(dir, KafkoOptions.DEFAULTS, io);
            b.createTopic("t", TopicConfig.builder().partitions(1).fsync(FsyncPolicy.NEVER).build());
            b.producer("t").send(null, new byte[] {1}).join();
            failing.set(true);
            Throwable first = catchThrowable(b::close);
            Throwable second = catchThrowable(b::close);
            assertThat(first).as("close() must report the failure to its caller").isNotNull();
            assertThat(second).isSameAs(first);
            Thread.sleep(200);
            assertThat(uncaught).as("uncaught exceptions").isEmpty();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
    }
}
