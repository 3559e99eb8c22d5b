package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lock file's owner record keeps a second live process out, and a live process reads it from the page cache:
 * forcing it to disk at every open and close bought nothing (after a power loss every process a record names is
 * gone) and cost an fsync at each, which every test context of the starter paid.
 */
class LockRecordForceTest {

    @Test
    void anOpenAndADurableCloseNeverForceTheLockFile(@TempDir Path dir) throws Exception {
        List<Path> forced = new CopyOnWriteArrayList<>();
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeForce(Path path) {
                forced.add(path);
            }
        });
        Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io);
        kafko.createTopic("t", TopicConfig.DEFAULTS);
        kafko.producer("t").send(null, new byte[] {1}).join();
        kafko.close();

        assertThat(forced).as("the close still forces the log").isNotEmpty();
        assertThat(forced).noneMatch(p -> p.getFileName().toString().equals(FileNames.LOCK_FILE));
        // the record was cleared all the same: the directory opens again at once
        Kafko.open(dir).close();
    }
}
