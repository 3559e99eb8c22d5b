/**
 * The crash, fault and hostile-input suite: kill -9 of a producing JVM, simulated power loss,
 * truncated and bit-flipped files, decompression bombs, hostile names, a full disk, two JVMs on
 * one directory, close racing producers and retention, and (profile {@code stress}) a soak run.
 * docs/RELIABILITY.md lists the figures each test produced.
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.reliability;
