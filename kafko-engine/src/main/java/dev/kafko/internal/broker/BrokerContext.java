package dev.kafko.internal.broker;

import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.internal.io.FileIo;
import java.time.Clock;

/**
 * Internal: what every part of one instance shares. Immutable; any thread.
 *
 * @param options the instance options
 * @param io the file seam
 * @param scheduler the instance's background thread
 * @param flusher the thread that fsyncs active segments behind their writers
 * @param observer the user's observer, guarded so that its exceptions are only logged
 * @param observing whether {@code observer} is a real one (so timing is worth measuring)
 */
record BrokerContext(KafkoOptions options, FileIo io, Scheduler scheduler, Flusher flusher, KafkoObserver observer,
        boolean observing) {

    BrokerContext(KafkoOptions options, FileIo io, Scheduler scheduler, Flusher flusher) {
        this(options, io, scheduler, flusher, new GuardedObserver(options.observer()),
                options.observer() != KafkoObserver.NOOP);
    }

    Clock clock() {
        return options.clock();
    }
}
