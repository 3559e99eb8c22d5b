/**
 * Jazzer fuzz targets for every parser of untrusted bytes: frames, index files, group offset
 * files, topic configs, names and the codecs. Each replays its committed corpus
 * (src/test/resources/dev/kafko/fuzz/&lt;Class&gt;Inputs/&lt;method&gt;/) in every build and fuzzes
 * with {@code JAZZER_FUZZ=1}; see docs/RELIABILITY.md.
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.fuzz;
