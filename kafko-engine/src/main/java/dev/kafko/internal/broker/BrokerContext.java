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
 * @param preparer the thread that prepares active segments' pages ahead of their writers
 * @param observer the user's observer, guarded so that its exceptions are only logged
 * @param observing whether {@code observer} is a real one (so timing is worth measuring)
 * @param stranded raised when a partition's rounds are stranded (see {@link CompletionBarrier.Strandings})
 */
record BrokerContext(KafkoOptions options, FileIo io, Scheduler scheduler, Preparer preparer, KafkoObserver observer,
        boolean observing, CompletionBarrier.Strandings stranded) {

    BrokerContext(KafkoOptions options, FileIo io, Scheduler scheduler, Preparer preparer) {
        this(options, io, scheduler, preparer, new GuardedObserver(options.observer()),
                options.observer() != KafkoObserver.NOOP, new CompletionBarrier.Strandings());
    }

    Clock clock() {
        return options.clock();
    }
}
