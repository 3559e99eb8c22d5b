package dev.kafko.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FileNamesTest {

    @Test
    void offsetNamesAreTwentyDigitsZeroPaddedAndReadBack() {
        assertThat(FileNames.offsetName(0)).isEqualTo("00000000000000000000");
        assertThat(FileNames.offsetName(42)).isEqualTo("00000000000000000042");
        assertThat(FileNames.offsetName(Long.MAX_VALUE)).isEqualTo("09223372036854775807");
        long seed = 20261129L;
        Random random = new Random(seed);
        for (int i = 0; i < 1_000; i++) {
            long offset = random.nextLong() & Long.MAX_VALUE >>> random.nextInt(63);
            String name = FileNames.offsetName(offset);
            assertThat(name).as("seed %s, offset %s", seed, offset).hasSize(20).matches("[0-9]{20}");
            assertThat(FileNames.baseOffsetOf(FileNames.segmentFile(Path.of("p"), offset).getFileName().toString()))
                    .isEqualTo(offset);
        }
    }

    @Test
    void aSegmentFileNameHasAsciiDigitsOnly() {
        assertThat(FileNames.isSegmentFile("00000000000000000042.log")).isTrue();
        // Arabic-Indic digits: Character.isDigit and Long.parseLong take them for 0 to 9
        assertThat(FileNames.isSegmentFile("\u0660".repeat(18) + "\u0664\u0662.log")).isFalse();
        assertThat(FileNames.isSegmentFile("0000000000000000004x.log")).isFalse();
        assertThat(FileNames.isSegmentFile("00000000000000000042.index")).isFalse();
        // twenty digits beyond a long: no offset kafko writes, and Long.parseLong would throw
        assertThat(FileNames.isSegmentFile("99999999999999999999.log")).isFalse();
        assertThat(FileNames.startsWithOffset("09223372036854775808.index")).isFalse();
        assertThat(FileNames.startsWithOffset(FileNames.offsetName(Long.MAX_VALUE) + ".index")).isTrue();
        assertThat(FileNames.isAsciiDigits("12\u0663", 3)).isFalse();
        assertThat(FileNames.isAsciiDigits("12", 3)).isFalse();
    }

    @Test
    void aNegativeOffsetHasNoName() {
        assertThatThrownBy(() -> FileNames.offsetName(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }
}
