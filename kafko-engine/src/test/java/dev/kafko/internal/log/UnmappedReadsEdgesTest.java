package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoStorageException;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.OpensOnlyFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Positional reads of an unmapped segment file, driven directly: the bytes and their order, a read past the end,
 * the channel cache's keep, drop, eviction and release, reads that find their channel closed, and opens that fail.
 */
class UnmappedReadsEdgesTest {

    @TempDir
    Path dir;

    private final List<UnmappedReads> made = new ArrayList<>();

    @AfterEach
    void releaseEveryReader() {
        made.forEach(UnmappedReads::close);
        // a reader that was interrupted leaves no status behind for the next test
        Thread.interrupted();
    }

    @Test
    void aCopyHoldsTheBytesAtItsPositionInLittleEndianOrder() throws IOException {
        Path file = file(64);
        UnmappedReads r = reads(FileIo.SYSTEM, file);
        ByteBuffer b = r.copy(3, 8);
        assertThat(b.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.position()).isZero();
        assertThat(b.limit()).isEqualTo(8);
        assertThat(b.get(0)).isEqualTo((byte) 3);
        assertThat(b.getLong(0)).isEqualTo(0x0A09080706050403L);
        byte[] dst = new byte[10];
        r.read(60, dst, 5, 4);
        assertThat(dst).containsExactly(0, 0, 0, 0, 0, 60, 61, 62, 63, 0);
    }

    @Test
    void aReadPastTheEndFailsNamingThePositionAndTheFile() throws IOException {
        Path file = file(64);
        UnmappedReads r = reads(FileIo.SYSTEM, file);
        FileChannel kept = FileChannel.open(file, StandardOpenOption.READ);
        r.keep(kept);
        assertThatThrownBy(() -> r.copy(60, 8)).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("at position 60 of segment").hasMessageContaining(file.toString())
                .hasMessageContaining("end of file at 64");
        // the channel that failed is out of the cache, and closed
        assertThat(kept.isOpen()).isFalse();
        // the reader reads on
        assertThat(r.copy(56, 8).get(7)).isEqualTo((byte) 63);
    }

    @Test
    void aReleasedFileFailsEveryReadAsDeletedAndClosesItsChannel() throws IOException {
        Path file = file(64);
        UnmappedReads r = reads(FileIo.SYSTEM, file);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        r.keep(ch);
        assertThat(r.copy(0, 1).get(0)).isEqualTo((byte) 0);
        r.close();
        assertThat(ch.isOpen()).isFalse();
        assertThatThrownBy(() -> r.copy(0, 1)).isInstanceOf(OffsetOutOfRangeException.class)
                .hasMessageContaining("was deleted").hasMessageContaining(file.toString());
        r.close();
        // a channel kept after the release is closed, not cached
        FileChannel late = FileChannel.open(file, StandardOpenOption.READ);
        r.keep(late);
        assertThat(late.isOpen()).isFalse();
    }

    @Test
    void aSecondKeptChannelIsClosedAndTheFirstServesTheReads() throws IOException {
        Path file = file(64);
        CountingIo io = new CountingIo();
        UnmappedReads r = reads(io, file);
        FileChannel first = FileChannel.open(file, StandardOpenOption.READ);
        FileChannel second = FileChannel.open(file, StandardOpenOption.READ);
        r.keep(first);
        r.keep(second);
        assertThat(second.isOpen()).isFalse();
        assertThat(first.isOpen()).isTrue();
        assertThat(r.copy(10, 1).get(0)).isEqualTo((byte) 10);
        assertThat(io.opens.get()).isZero();
        r.dropCached();
        assertThat(first.isOpen()).isFalse();
        // the next read opens the file again, and keeps that channel for the one after
        assertThat(r.copy(11, 1).get(0)).isEqualTo((byte) 11);
        assertThat(r.copy(12, 1).get(0)).isEqualTo((byte) 12);
        assertThat(io.opens.get()).isEqualTo(1);
        assertThat(io.channels.get(0).isOpen()).isTrue();
        r.close();
        assertThat(io.channels.get(0).isOpen()).isFalse();
    }

    @Test
    void theLeastRecentlyUsedChannelIsClosedPastTheBoundAndItsFileReadsOn() throws IOException {
        Path file = file(64);
        List<FileChannel> kept = new ArrayList<>();
        // as many as the bound: any other file's channel is evicted first, then only this test's are cached
        for (int i = 0; i < UnmappedReads.MAX_OPEN; i++) {
            FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
            reads(FileIo.SYSTEM, file).keep(ch);
            kept.add(ch);
        }
        assertThat(UnmappedReads.openChannels()).isEqualTo(UnmappedReads.MAX_OPEN);
        assertThat(kept).allSatisfy(ch -> assertThat(ch.isOpen()).isTrue());
        // the first one read last: the second is the least recently used
        made.get(0).copy(0, 1);
        CountingIo io = new CountingIo();
        UnmappedReads next = reads(io, file);
        assertThat(next.copy(5, 1).get(0)).isEqualTo((byte) 5);
        assertThat(UnmappedReads.openChannels()).isEqualTo(UnmappedReads.MAX_OPEN);
        assertThat(kept.get(1).isOpen()).isFalse();
        assertThat(kept.get(0).isOpen()).isTrue();
        assertThat(kept.subList(2, kept.size())).allSatisfy(ch -> assertThat(ch.isOpen()).isTrue());
        assertThat(io.channels.get(0).isOpen()).isTrue();
        // an evicted file reads on through a channel of its own again
        assertThat(made.get(1).copy(6, 1).get(0)).isEqualTo((byte) 6);
        assertThat(UnmappedReads.openChannels()).isEqualTo(UnmappedReads.MAX_OPEN);
    }

    @Test
    void anInterruptedReaderReadsAndKeepsItsInterruptStatus() throws IOException {
        Path file = file(64);
        // plain channels, which an interrupt closes (FileIo.SYSTEM's survive it)
        CountingIo io = new CountingIo();
        UnmappedReads r = reads(io, file);
        r.copy(0, 1);
        Thread.currentThread().interrupt();
        ByteBuffer b = r.copy(20, 4);
        assertThat(Thread.interrupted()).isTrue();
        assertThat(b.getInt(0)).isEqualTo(0x17161514);
        // the channel the interrupt closed was dropped: a fresh one serves the next read, without an interrupt
        assertThat(r.copy(30, 1).get(0)).isEqualTo((byte) 30);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(io.opens.get()).isEqualTo(2);
        assertThat(io.channels.get(0).isOpen()).isFalse();
    }

    @Test
    void aReadThatFindsItsChannelsClosedThreeTimesOpensOneOfItsOwnAndClosesIt() throws IOException {
        Path file = file(64);
        CountingIo io = new CountingIo();
        io.closedOpens = 3;
        UnmappedReads r = reads(io, file);
        assertThat(r.copy(7, 1).get(0)).isEqualTo((byte) 7);
        assertThat(io.opens.get()).isEqualTo(4);
        // its own channel is not cached: closed after the read
        assertThat(io.channels.get(3).isOpen()).isFalse();
        assertThat(UnmappedReads.openChannels()).isLessThanOrEqualTo(UnmappedReads.MAX_OPEN);
    }

    @Test
    void aReadWhoseOwnChannelIsClosedTooFailsTypedInsteadOfTryingForever() throws IOException {
        Path file = file(64);
        CountingIo io = new CountingIo();
        io.closedOpens = Integer.MAX_VALUE;
        UnmappedReads r = reads(io, file);
        assertThatThrownBy(() -> r.copy(7, 2)).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("read 2 bytes at position 7 of segment").hasMessageContaining(file.toString());
        assertThat(io.opens.get()).isEqualTo(4);
        r.close();
        // once released, the same failure reads as the file deleted
        assertThatThrownBy(() -> r.copy(7, 2)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void anOpenThatFailsIsAStorageFailureNamingTheFile() throws IOException {
        Path file = file(64);
        CountingIo io = new CountingIo();
        io.failOpens = true;
        UnmappedReads r = reads(io, file);
        assertThatThrownBy(() -> r.copy(0, 1)).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("open segment for reading").hasMessageContaining(file.toString());
    }

    @Test
    void aFileReleasedWhileItsChannelOpensFailsAsDeletedAndKeepsNoChannel() throws IOException {
        Path file = file(64);
        CountingIo io = new CountingIo();
        UnmappedReads r = reads(io, file);
        int before = UnmappedReads.openChannels();
        io.onOpen = path -> r.close();
        assertThatThrownBy(() -> r.copy(0, 1)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(io.channels.get(0).isOpen()).isFalse();
        assertThat(UnmappedReads.openChannels()).isEqualTo(before);
    }

    @Test
    void anOpenFailingAfterTheReleaseReadsAsDeleted() throws IOException {
        Path file = file(64);
        CountingIo io = new CountingIo();
        io.failOpens = true;
        UnmappedReads r = reads(io, file);
        io.onOpen = path -> r.close();
        assertThatThrownBy(() -> r.copy(0, 1)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void aChannelKeptWhileAReadOpensItsOwnServesTheReadAndTheExtraOneIsClosed() throws IOException {
        Path file = file(64);
        CountingIo io = new CountingIo();
        UnmappedReads r = reads(io, file);
        FileChannel other = FileChannel.open(file, StandardOpenOption.READ);
        io.onOpen = path -> r.keep(other);
        assertThat(r.copy(9, 1).get(0)).isEqualTo((byte) 9);
        assertThat(io.channels.get(0).isOpen()).isFalse();
        assertThat(other.isOpen()).isTrue();
        r.close();
        assertThat(other.isOpen()).isFalse();
    }

    /** A file of {@code size} bytes, the byte at each position being the position's low byte. */
    private Path file(int size) throws IOException {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) i;
        }
        Path file = Files.createTempFile(dir, "seg", ".log");
        Files.write(file, b);
        return file;
    }

    private UnmappedReads reads(FileIo io, Path file) {
        UnmappedReads r = new UnmappedReads(io, file);
        made.add(r);
        return r;
    }

    /** Counts opens and keeps their channels; may hand out closed channels, fail, or run a hook as it opens. */
    private static final class CountingIo extends OpensOnlyFileIo {
        final AtomicInteger opens = new AtomicInteger();
        final List<FileChannel> channels = new ArrayList<>();
        int closedOpens;
        boolean failOpens;
        Consumer<Path> onOpen = p -> { };

        @Override
        public FileChannel open(Path path, OpenOption... options) throws IOException {
            int n = opens.incrementAndGet();
            onOpen.accept(path);
            if (failOpens) {
                throw new IOException("no descriptor left");
            }
            FileChannel ch = FileChannel.open(path, options);
            channels.add(ch);
            if (n <= closedOpens) {
                ch.close();
            }
            return ch;
        }
    }
}
