package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import dev.kafko.internal.log.CapturedWarnings;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The edges of {@link BrokerClose}: how many helpers a close takes, and that no thread of it outlives it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerCloseEdgesTest {

    @TempDir
    Path tmp;

    @Test
    void aCloseTakesOneHelperPer64PartitionsUpToThreeAndJoinsThemBeforeItReturns() {
        assertThat(helpersOfACloseOf(127)).isEmpty();
        assertThat(helpersOfACloseOf(128)).containsExactly("kafko-close-1");
        assertThat(helpersOfACloseOf(256)).containsExactly("kafko-close-1", "kafko-close-2", "kafko-close-3");
    }

    @Test
    void noThreadOfACloseOutlivesItAndASecondCloseReturnsAsTheFirstDid() {
        Set<Thread> before = closeThreads();
        Kafko k = Broker.open(tmp.resolve("data"), KafkoOptions.DEFAULTS, FileIo.SYSTEM);
        k.createTopic("t");
        k.producer("t").send(null, new byte[] {1}).join();
        k.close();
        Set<Thread> started = closeThreads();
        started.removeAll(before);
        assertThat(started).as("kafko-close threads alive after close() returned").isEmpty();
        k.close();
        try (Kafko again = Broker.open(tmp.resolve("data"), KafkoOptions.DEFAULTS, FileIo.SYSTEM)) {
            assertThat(again.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(1);
        }
    }

    @Test
    void aCloseThatFailsLogsItsFailureOnceNamingTheDirectory() throws Exception {
        AtomicBoolean failing = new AtomicBoolean();
        FileIo io = new WrappingFileIo((path, options, real) -> real) {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                if (failing.get()) {
                    throw new IOException("injected: cannot open " + path);
                }
                return super.open(path, options);
            }

            @Override
            public void atomicMove(Path source, Path target) throws IOException {
                if (failing.get()) {
                    throw new IOException("injected: cannot move " + source);
                }
                super.atomicMove(source, target);
            }
        };
        Path data = tmp.resolve("data");
        Kafko k = Broker.open(data, KafkoOptions.DEFAULTS, io);
        k.createTopic("t");
        k.producer("t").send(null, new byte[] {1}).join();
        failing.set(true);
        Throwable failure;
        List<String> logged;
        try (CapturedWarnings captured = CapturedWarnings.of(Broker.class)) {
            failure = catchThrowable(k::close);
            logged = captured.lines();
        }
        assertThat(failure).isNotNull();
        String prefix = "closing " + data.toRealPath() + " failed: ";
        assertThat(logged).filteredOn(l -> l.startsWith(prefix)).containsExactly(prefix + failure);
        // the directory was let go all the same
        Broker.open(data, KafkoOptions.DEFAULTS, FileIo.SYSTEM).close();
    }

    /** The names of the helpers a close of a topic of {@code partitions} partitions started (each ended by then). */
    private List<String> helpersOfACloseOf(int partitions) {
        List<Thread> helpers = new CopyOnWriteArrayList<>();
        BiFunction<Runnable, String, Thread> real = BrokerClose.helperStarter;
        BrokerClose.helperStarter = (work, name) -> {
            Thread t = real.apply(work, name);
            helpers.add(t);
            return t;
        };
        Path dir = tmp.resolve("p" + partitions);
        try {
            Kafko k = Broker.open(dir, KafkoOptions.DEFAULTS, FileIo.SYSTEM);
            k.createTopic("t", TopicConfig.builder().partitions(partitions).build());
            k.close();
        } finally {
            BrokerClose.helperStarter = real;
        }
        assertThat(helpers).noneMatch(Thread::isAlive);
        // every partition was closed cleanly, whichever thread closed it
        for (int p = 0; p < partitions; p++) {
            assertThat(FileNames.partitionDir(dir.resolve("t"), p).resolve(FileNames.CLEAN_SHUTDOWN_FILE)).exists();
        }
        return helpers.stream().map(Thread::getName).collect(Collectors.toList());
    }

    private static Set<Thread> closeThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("kafko-close") && t.isAlive())
                .collect(Collectors.toSet());
    }
}
