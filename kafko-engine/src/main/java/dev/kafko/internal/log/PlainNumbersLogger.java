package dev.kafko.internal.log;

import java.util.ResourceBundle;

/**
 * A {@link System.Logger} whose messages show numbers as they are: offsets, positions and sizes as plain digits
 * ({@code 3996}, never {@code 3,996} nor, in a German locale, {@code 3.996}), so that a line names the offset a user
 * searches for. {@code System.Logger} formats its parameters with {@link java.text.MessageFormat}, which groups the
 * digits of a number by the default locale; this one hands each number on as its text.
 */
final class PlainNumbersLogger implements System.Logger {

    private final System.Logger logger;

    private PlainNumbersLogger(System.Logger logger) {
        this.logger = logger;
    }

    /** The logger of this class's name. */
    static System.Logger of(Class<?> source) {
        return new PlainNumbersLogger(System.getLogger(source.getName()));
    }

    @Override
    public String getName() {
        return logger.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
        return logger.isLoggable(level);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        logger.log(level, bundle, msg, thrown);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        Object[] shown = params == null ? null : params.clone();
        if (shown != null) {
            for (int i = 0; i < shown.length; i++) {
                if (shown[i] instanceof Number) {
                    shown[i] = shown[i].toString();
                }
            }
        }
        logger.log(level, bundle, format, shown);
    }
}
