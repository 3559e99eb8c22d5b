package dev.kafko.internal.io;

import java.nio.file.Path;

/**
 * Internal: every file and directory name kafko writes, in one place. No other class spells a
 * suffix or a fixed name.
 *
 * <pre>
 * dataDir/
 *   .lock                         exclusive lock of the instance
 *   &lt;topic&gt;/
 *     topic.conf                  the topic's config (versioned, written atomically)
 *     topic.conf.deleted          only while the topic is being deleted (its config, renamed)
 *     groups/&lt;group&gt;/offsets       a group's committed offsets (a directory per group, so that a
 *                                 249-character name still leaves room for the file's temporary copy)
 *     &lt;partition&gt;/                 0, 1, 2 ...
 *       00000000000000000000.log        segment named by its 20-digit base offset
 *       00000000000000000000.index      sparse offset index of that segment
 *       00000000000000000000.timeindex  time index of that segment
 *       .clean                          present after a clean close; lets reopen skip the scan
 * </pre>
 */
public final class FileNames {

    public static final String LOCK_FILE = ".lock";
    public static final String TOPIC_CONFIG_FILE = "topic.conf";
    /**
     * What {@link #TOPIC_CONFIG_FILE} is renamed to when its topic is deleted: the commit point of a
     * delete, so that a directory a crash left half-deleted says so.
     */
    public static final String TOPIC_DELETED_MARKER = TOPIC_CONFIG_FILE + FileNames.DELETED_SUFFIX;
    public static final String GROUPS_DIR = "groups";
    public static final String OFFSETS_FILE = "offsets";
    public static final String CLEAN_SHUTDOWN_FILE = ".clean";

    /** The name of the largest offset: every offset name compares at most equal to it. */
    private static final String MAX_OFFSET_NAME = offsetName(Long.MAX_VALUE);
    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    public static final String OFFSETS_SUFFIX = ".offsets";
    public static final String TMP_SUFFIX = ".tmp";
    public static final String DELETED_SUFFIX = ".deleted";
    /**
     * The new file of compacted segments merged into one, once it is complete and durable: the segments whose offsets
     * it covers are deleted, then it is renamed to the first one's name; an open finishes what a crash cut short.
     */
    public static final String SWAP_SUFFIX = ".swap";

    private FileNames() {
    }

    /**
     * The 20-digit zero-padded form of an offset, so that {@code ls} sorts segments. (Padded by hand:
     * {@code String.format} would initialise {@code java.util.Formatter} and its locale data on the
     * first segment a process creates.)
     */
    public static String offsetName(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("an offset is never negative: " + offset);
        }
        String digits = Long.toString(offset);
        return "0".repeat(20 - digits.length()) + digits;
    }

    public static Path segmentFile(Path partitionDir, long baseOffset) {
        return partitionDir.resolve(offsetName(baseOffset) + LOG_SUFFIX);
    }

    /** The {@link #SWAP_SUFFIX} file of the merged segment at {@code baseOffset}. */
    public static Path swapFile(Path partitionDir, long baseOffset) {
        return partitionDir.resolve(offsetName(baseOffset) + LOG_SUFFIX + SWAP_SUFFIX);
    }

    /** Whether a file name is a {@linkplain #swapFile swap file}. */
    public static boolean isSwapFile(String fileName) {
        return fileName.length() == 20 + LOG_SUFFIX.length() + SWAP_SUFFIX.length()
                && fileName.endsWith(LOG_SUFFIX + SWAP_SUFFIX) && startsWithOffset(fileName);
    }

    public static Path indexFile(Path partitionDir, long baseOffset) {
        return partitionDir.resolve(offsetName(baseOffset) + INDEX_SUFFIX);
    }

    public static Path timeIndexFile(Path partitionDir, long baseOffset) {
        return partitionDir.resolve(offsetName(baseOffset) + TIME_INDEX_SUFFIX);
    }

    public static Path partitionDir(Path topicDir, int partition) {
        return topicDir.resolve(Integer.toString(partition));
    }

    public static Path groupOffsetsFile(Path topicDir, String group) {
        return topicDir.resolve(GROUPS_DIR).resolve(group).resolve(OFFSETS_FILE);
    }

    /**
     * Where a group's offsets were kept before each group had a directory ({@code groups/<group>.offsets}):
     * moved to {@link #groupOffsetsFile} when the group is first used.
     */
    public static Path legacyGroupOffsetsFile(Path topicDir, String group) {
        return topicDir.resolve(GROUPS_DIR).resolve(group + OFFSETS_SUFFIX);
    }

    /** Whether a file name is a segment: an {@linkplain #startsWithOffset offset name} then {@link #LOG_SUFFIX}. */
    public static boolean isSegmentFile(String fileName) {
        return fileName.length() == 20 + LOG_SUFFIX.length() && fileName.endsWith(LOG_SUFFIX)
                && startsWithOffset(fileName);
    }

    /**
     * Whether a file name begins with an offset as {@link #offsetName} writes it: 20 ASCII digits (not
     * any Unicode digit, which {@code Long.parseLong} reads too: two names for one offset) of a value
     * that fits a {@code long}, so that {@link #baseOffsetOf} reads it.
     */
    public static boolean startsWithOffset(String fileName) {
        return fileName.length() >= 20 && isAsciiDigits(fileName, 20)
                && fileName.substring(0, 20).compareTo(MAX_OFFSET_NAME) <= 0;
    }

    /** Whether the first {@code length} characters of {@code s} are ASCII digits (and it has that many). */
    public static boolean isAsciiDigits(String s, int length) {
        if (s.length() < length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** The base offset in a segment, index or time index file name. */
    public static long baseOffsetOf(String fileName) {
        return Long.parseLong(fileName.substring(0, 20));
    }
}
