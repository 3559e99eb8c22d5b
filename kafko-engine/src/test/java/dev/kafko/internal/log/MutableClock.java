package dev.kafko.internal.log;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand; one thread moves it, any reads it. */
public final class MutableClock extends Clock {

    private volatile long millis;

    public MutableClock(long millis) {
        this.millis = millis;
    }

    public void advance(Duration d) {
        millis += d.toMillis();
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }
}
