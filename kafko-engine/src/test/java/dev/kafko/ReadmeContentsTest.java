package dev.kafko;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's "Contents" lists its sections and subsections in their order, each linked to its heading's anchor, so
 * that a section added, renamed or moved cannot leave the list behind.
 */
class ReadmeContentsTest {

    private static final Pattern HEADING = Pattern.compile("^(#{2,3}) (.+)$");
    private static final Pattern ENTRY = Pattern.compile("^( {0,2})- \\[(.+)]\\(#([^)]+)\\)$");
    private static final List<String> UNLISTED = List.of("The two commands", "Contents", "License");

    @Test
    void contentsListEverySectionInOrderWithItsAnchor() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("..", "README.md"), UTF_8);
        List<String> headings = new ArrayList<>();
        boolean inCode = false;
        for (String line : lines) {
            if (line.startsWith("```")) {
                inCode = !inCode;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (!inCode && heading.matches() && !UNLISTED.contains(heading.group(2))) {
                headings.add(indent(heading.group(1).length()) + "- [" + heading.group(2) + "](#"
                        + anchor(heading.group(2)) + ")");
            }
        }
        int start = lines.indexOf("## Contents");
        assertThat(start).as("## Contents").isNotNegative();
        List<String> entries = new ArrayList<>();
        for (int i = start + 2; i < lines.size() && ENTRY.matcher(lines.get(i)).matches(); i++) {
            entries.add(lines.get(i));
        }
        assertThat(headings).as("the README's sections").hasSizeGreaterThan(20);
        assertThat(entries).containsExactlyElementsOf(headings);
    }

    @Test
    void anchorsAreGithubs() {
        assertThat(anchor("Return values, `@SendTo` and asynchronous listeners"))
                .isEqualTo("return-values-sendto-and-asynchronous-listeners");
        assertThat(anchor("Without Boot's auto-configuration")).isEqualTo("without-boots-auto-configuration");
        assertThat(anchor("Quickstart: a Spring Boot 4 application")).isEqualTo("quickstart-a-spring-boot-4-application");
    }

    private static String indent(int level) {
        return level == 3 ? "  " : "";
    }

    /** GitHub's anchor of a heading: lower case, punctuation but hyphens dropped, spaces made hyphens. */
    private static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{Alnum}_\\- ]", "").replace(' ', '-');
    }
}
