package dev.kafko;

import java.lang.reflect.InvocationTargetException;
import org.jspecify.annotations.Nullable;

/**
 * The codec a topic compresses its frames with. Compression is applied once per frame (one append
 * of one or more records), never per record.
 *
 * <p>{@link #LZ4} needs {@code at.yawk.lz4:lz4-java} and {@link #ZSTD} needs
 * {@code com.github.luben:zstd-jni} on the classpath; both are optional dependencies of the engine
 * (the Spring Boot starter brings both). Writing or reading a frame with a codec that is not
 * available fails with {@link CompressionUnavailableException}; it never mis-decodes.
 */
public enum Compression {
    /** Records are stored as they are. */
    NONE(0, null),
    /** LZ4 block compression: fast, modest ratio. */
    LZ4(1, "net.jpountz.lz4.LZ4Factory"),
    /** Zstandard: slower, better ratio. */
    ZSTD(2, "com.github.luben.zstd.Zstd");

    /** {@link #values()} once: a read looks up every frame's codec, and {@code values()} copies the array. */
    private static final Compression[] BY_ORDINAL = values();

    private final int id;
    private final String probeClass;
    private volatile Boolean available;
    /** Why the library, though on the classpath, did not load; written before {@link #available}. */
    private volatile @Nullable Throwable loadFailure;

    Compression(int id, String probeClass) {
        this.id = id;
        this.probeClass = probeClass;
    }

    /** The codec's number in a frame's attributes; stable on disk. */
    public int id() {
        return id;
    }

    /** The codec with this on-disk number, or {@code null} when the number is unknown. */
    public static @Nullable Compression fromId(int id) {
        for (Compression c : BY_ORDINAL) {
            if (c.id == id) {
                return c;
            }
        }
        return null;
    }

    /**
     * Whether this codec can be used in this JVM: its library is on the classpath and, for zstd,
     * its native library loads.
     */
    public boolean isAvailable() {
        Boolean a = available;
        if (a == null) {
            a = probe();
            available = a;
        }
        return a;
    }

    private boolean probe() {
        if (probeClass == null) {
            return true;
        }
        ClassLoader loader = Compression.class.getClassLoader();
        try {
            Class.forName(probeClass, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return false; // the jar is not on the classpath
        }
        try {
            // zstd's first class loads its native library: a missing or denied one surfaces here, not mid-append
            Class.forName(probeClass, true, loader);
            if (this == ZSTD) {
                Class.forName("com.github.luben.zstd.util.Native", true, loader).getMethod("load").invoke(null);
            }
            return true;
        } catch (InvocationTargetException | ExceptionInInitializerError e) {
            loadFailure = e.getCause() != null ? e.getCause() : e;
            return false;
        } catch (ReflectiveOperationException | LinkageError e) {
            loadFailure = e;
            return false;
        }
    }

    /** Throws {@link CompressionUnavailableException} when this codec is not available. */
    public void requireAvailable() {
        if (isAvailable()) {
            return;
        }
        String library = this == LZ4 ? "at.yawk.lz4:lz4-java" : "com.github.luben:zstd-jni";
        Throwable failure = loadFailure;
        if (failure != null) {
            throw new CompressionUnavailableException("compression " + name() + " is not available: " + library
                    + " is on the classpath but failed to load: " + failure
                    + (failure instanceof IllegalCallerException
                            ? " (this JVM denies native access: run it with --enable-native-access=ALL-UNNAMED)"
                            : ""), failure);
        }
        throw new CompressionUnavailableException("compression " + name() + " is not available: add " + library
                + " to the classpath (on the module path, also require its module "
                + (this == LZ4 ? "org.lz4.java" : "com.github.luben.zstd_jni") + ")");
    }
}
