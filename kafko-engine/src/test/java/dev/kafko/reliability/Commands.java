package dev.kafko.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** Runs the system commands of tests that mount file systems (root only; such tests skip themselves elsewhere). */
final class Commands {

    private Commands() {
    }

    /** Null when {@code command} succeeded within a minute, else why not: its output, or what kept it from running. */
    static @Nullable String run(String... command) throws InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.toString();
        }
        String out;
        try {
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            out = e.toString();
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "timed out";
        }
        return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
    }
}
