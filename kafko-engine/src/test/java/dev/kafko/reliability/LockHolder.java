package dev.kafko.reliability;

import dev.kafko.Kafko;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Run in a child JVM by {@link TwoJvmTest}: opens the directory, optionally opens and closes a
 * second channel of its lock file (which drops this process's fcntl lock), prints {@code READY},
 * and closes the instance when its standard input ends. Arguments: data directory, {@code touch}
 * or {@code plain}.
 */
public final class LockHolder {

    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        try (Kafko kafko = Kafko.open(Path.of(args[0]))) {
            if (args[1].equals("touch")) {
                try (FileChannel other = FileChannel.open(kafko.dataDir().resolve(".lock"), StandardOpenOption.READ)) {
                    other.size();
                }
            }
            System.out.println("READY");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our input
            }
        }
        System.out.println("CLOSED");
    }
}
