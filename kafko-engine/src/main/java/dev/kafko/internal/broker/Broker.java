package dev.kafko.internal.broker;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import java.nio.file.Path;

/** Internal: the implementation of {@link Kafko}. */
public final class Broker {

    private Broker() {
    }

    public static Kafko open(Path dataDir, KafkoOptions options) {
        throw new UnsupportedOperationException("not built yet");
    }
}
