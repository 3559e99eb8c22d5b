package dev.kafko.spring.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.springframework.beans.factory.DisposableBean;

/**
 * The directory the auto-configured {@code Kafko} opens. An ephemeral one is a fresh temporary
 * directory, deleted when this bean is destroyed — which is after the {@code Kafko} bean that
 * depends on it closed. Immutable; destroyed once by the container.
 */
public final class KafkoDataDirectory implements DisposableBean {

    private final Path path;
    private final boolean ephemeral;

    private KafkoDataDirectory(Path path, boolean ephemeral) {
        this.path = path;
        this.ephemeral = ephemeral;
    }

    /** A directory that outlives the context. */
    public static KafkoDataDirectory of(Path path) {
        return new KafkoDataDirectory(path, false);
    }

    /** A new temporary directory, deleted on destroy. */
    public static KafkoDataDirectory ephemeral() {
        try {
            return new KafkoDataDirectory(Files.createTempDirectory("kafko-"), true);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temporary kafko data directory", e);
        }
    }

    public Path path() {
        return path;
    }

    public boolean isEphemeral() {
        return ephemeral;
    }

    @Override
    public void destroy() throws IOException {
        if (ephemeral && Files.exists(path)) {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        }
    }

    @Override
    public String toString() {
        return path + (ephemeral ? " (ephemeral)" : "");
    }
}
