package dev.kafko;

/**
 * Run in a JVM where zstd-jni is on the classpath but its native library cannot load (see
 * {@link CompressionNativeLoadTest}): prints whether zstd is available and what {@code requireAvailable} says.
 */
final class ZstdLoadProbe {

    private ZstdLoadProbe() {
    }

    public static void main(String[] args) {
        System.out.println("available=" + Compression.ZSTD.isAvailable());
        try {
            Compression.ZSTD.requireAvailable();
            System.out.println("required=ok");
        } catch (CompressionUnavailableException e) {
            System.out.println("message=" + e.getMessage());
            System.out.println("cause=" + e.getCause());
        }
    }
}
