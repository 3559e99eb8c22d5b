package dev.kafko.internal.log;

import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The WARNING lines an engine class logs (through {@code System.Logger}, backed by JUL) while open,
 * formatted (or, {@link #everyLevelOf}, every line with its level). Other suites quiet the engine's loggers for the whole JVM, so the level is raised while
 * capturing and restored on close. Thread-safe.
 */
public final class CapturedWarnings implements AutoCloseable {

    private final Logger jul;
    private final Level level;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    /** Whether lines of every level are kept, each as "LEVEL message"; else WARNING and above, as the message. */
    private final boolean everyLevel;
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            String message = r.getParameters() == null ? r.getMessage()
                    : MessageFormat.format(r.getMessage(), r.getParameters());
            if (everyLevel) {
                lines.add(r.getLevel() + " " + message);
            } else if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                lines.add(message);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private CapturedWarnings(String loggerName, boolean everyLevel) {
        this.everyLevel = everyLevel;
        jul = Logger.getLogger(loggerName);
        level = jul.getLevel();
        jul.setLevel(Level.ALL);
        jul.addHandler(handler);
    }

    /** Starts capturing the warnings of {@code source}. */
    public static CapturedWarnings of(Class<?> source) {
        return new CapturedWarnings(source.getName(), false);
    }

    /** Starts capturing every line {@code source} logs, whatever its level, each as "LEVEL message". */
    public static CapturedWarnings everyLevelOf(Class<?> source) {
        return new CapturedWarnings(source.getName(), true);
    }

    /** Starts capturing the warnings of the class named {@code className} (one the test cannot see). */
    public static CapturedWarnings of(String className) {
        return new CapturedWarnings(className, false);
    }

    /** Starts capturing the warnings of {@link LogLoader}, which is package-private. */
    public static CapturedWarnings ofLogLoader() {
        return of(LogLoader.class);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        jul.removeHandler(handler);
        jul.setLevel(level);
    }
}
