package dev.kafko.sample;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code sample.*} properties of the load mode.
 *
 * @param load how many orders the load mode sends; 0 (the default) serves HTTP only
 * @param exitAfterLoad whether the application exits after the load mode's summary (default) or
 *     keeps serving
 * @param loadInFlight the most orders between their send and the read model seeing them finish
 * @param loadInvalidEvery every n-th order of the load is invalid (to exercise the dead-letter
 *     path); 0 for none
 * @param loadSeed the seed of the load's random orders
 * @param loadTimeout how long the load mode waits for the read model after the last send
 */
@ConfigurationProperties("sample")
public record SampleProperties(@DefaultValue("0") int load, @DefaultValue("true") boolean exitAfterLoad,
                               @DefaultValue("512") int loadInFlight, @DefaultValue("100") int loadInvalidEvery,
                               @DefaultValue("42") long loadSeed, @DefaultValue("120s") Duration loadTimeout) {
}
