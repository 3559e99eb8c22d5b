/**
 * The load mode ({@code --sample.load=N}): sends N orders through the pipeline with a bounded
 * number in flight, reports throughput and end-to-end latency every second, then a summary.
 */
@NullMarked
package dev.kafko.sample.load;

import org.jspecify.annotations.NullMarked;
