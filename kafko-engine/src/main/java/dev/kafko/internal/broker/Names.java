package dev.kafko.internal.broker;

import dev.kafko.InvalidNameException;
import dev.kafko.internal.io.FileNames;

/**
 * Internal: the naming rule of topics and groups, Kafka's: characters from {@code [A-Za-z0-9._-]},
 * 1 to 249 of them, and not {@code .} or {@code ..}, for topics and groups alike; one topic name,
 * {@value FileNames#LOCK_FILE}, is kafko's lock file and reserved. Checked before any
 * file-system call, so a name can never escape the data directory. Stateless; any thread.
 */
final class Names {

    static final int MAX_LENGTH = 249;

    private Names() {
    }

    /** Whether {@code name} follows the rule. */
    static boolean isValid(String name) {
        return isValid(name, MAX_LENGTH);
    }

    /** Whether {@code name} follows the rule of a group name (the same as a topic name's). */
    static boolean isValidGroup(String name) {
        return isValid(name, MAX_LENGTH);
    }

    private static boolean isValid(String name, int maxLength) {
        int n = name.length();
        if (n == 0 || n > maxLength || name.equals(".") || name.equals("..")) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param kind "topic" or "group", for the message
     * @throws NullPointerException naming {@code kind} (the parameter) when {@code name} is null
     * @throws InvalidNameException naming the rule and the bad name
     */
    static String check(String kind, String name) {
        if (name == null) {
            throw new NullPointerException(kind);
        }
        if (!isValid(name, MAX_LENGTH)) {
            throw new InvalidNameException(kind + " name '" + printable(name) + "' is invalid: a " + kind + " name has 1 to "
                    + MAX_LENGTH + " characters from [A-Za-z0-9._-] and is not '.' or '..' (length was "
                    + name.length() + ")");
        }
        if (kind.equals("topic") && name.equals(FileNames.LOCK_FILE)) {
            throw new InvalidNameException("topic name '" + name + "' is reserved: it is the name of the data"
                    + " directory's lock file");
        }
        return name;
    }

    /** The name with control characters escaped, cut to a readable length. */
    /**
     * Refuses a topic name that equals one of {@code existing} once '.' and '_' count as one character,
     * as Kafka does (its metric names cannot tell them apart): an application moved to Kafka would find
     * one of the two topics refused there.
     *
     * @throws InvalidNameException naming both topics
     */
    static void checkNoCollision(String name, Iterable<String> existing) {
        String folded = name.replace('.', '_');
        for (String other : existing) {
            if (!other.equals(name) && other.replace('.', '_').equals(folded)) {
                throw new InvalidNameException("topic '" + name + "' collides with existing topic '" + other
                        + "': Kafka counts '.' and '_' in topic names as the same character and refuses such a pair,"
                        + " so kafko does too");
            }
        }
    }

    private static String printable(String name) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length() && i < 64; i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (name.length() > 64) {
            sb.append("...");
        }
        return sb.toString();
    }
}
