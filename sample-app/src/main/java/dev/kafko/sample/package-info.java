/**
 * The kafko sample application: an order pipeline on the kafko Spring Boot starter. The
 * application class and its {@code sample.*} properties live here; the pipeline in
 * {@code order}, the replayed read model in {@code model}, the load generator in {@code load}.
 */
@NullMarked
package dev.kafko.sample;

import org.jspecify.annotations.NullMarked;
