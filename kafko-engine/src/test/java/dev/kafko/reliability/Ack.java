package dev.kafko.reliability;

/**
 * One acknowledged record (its send future completed) as the producing JVM printed it:
 * {@code ACK <partition> <offset> <key> <value checksum> .} (the final dot proves the line is whole).
 */
record Ack(int partition, long offset, String key, long checksum) {

    String line() {
        return "ACK " + partition + " " + offset + " " + key + " " + checksum + " .";
    }

    /** The ack on a whole line, or {@code null} when the line is something else or was cut by the kill. */
    static @org.jspecify.annotations.Nullable Ack parse(String line) {
        String[] f = line.split(" ");
        if (f.length != 6 || !f[0].equals("ACK") || !f[5].equals(".")) {
            return null;
        }
        return new Ack(Integer.parseInt(f[1]), Long.parseLong(f[2]), f[3], Long.parseLong(f[4]));
    }
}
