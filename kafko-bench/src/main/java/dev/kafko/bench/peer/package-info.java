/**
 * JMH benchmarks of other logs measured in the same run and on the same filesystem as kafko's
 * storage benchmarks, with the same 256-byte payloads and one writer, so that their numbers can be
 * read side by side. Nothing here is used by kafko itself.
 */
@NullMarked
package dev.kafko.bench.peer;

import org.jspecify.annotations.NullMarked;
