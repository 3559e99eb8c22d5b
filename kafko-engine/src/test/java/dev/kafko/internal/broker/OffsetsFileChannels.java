package dev.kafko.internal.broker;

import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link FileIo} that counts, on the channels of groups' {@code offsets} files, the channels open and the forces
 * made (each force also released on {@link #forced}, for a test that waits for one).
 */
final class OffsetsFileChannels {

    final AtomicInteger forces = new AtomicInteger();
    final Semaphore forced = new Semaphore(0);
    /** Channels of offsets files open. */
    final AtomicInteger openChannels = new AtomicInteger();
    final FileIo io = new WrappingFileIo((path, options, real) -> {
        if (!path.getFileName().toString().equals("offsets")) {
            return real;
        }
        openChannels.incrementAndGet();
        return new DelegatingFileChannel(real) {
            @Override
            protected void implCloseChannel() throws IOException {
                openChannels.decrementAndGet();
                super.implCloseChannel();
            }

            @Override
            public void force(boolean metaData) throws IOException {
                super.force(metaData);
                forces.incrementAndGet();
                forced.release();
            }
        };
    });
}
