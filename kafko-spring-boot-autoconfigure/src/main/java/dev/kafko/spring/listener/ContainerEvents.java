package dev.kafko.spring.listener;

import dev.kafko.spring.event.KafkoEvent;
import org.slf4j.Logger;
import org.springframework.context.ApplicationEventPublisher;

/**
 * How a container and its members hand their events ({@link dev.kafko.spring.event}) to the application: an
 * application listener that throws, an {@code Error} too (an assertion), is logged, never thrown out of the member
 * or the stop that publishes, which would skip what follows it; only the JVM's own errors go on. Any thread.
 */
final class ContainerEvents {

    private ContainerEvents() {
    }

    /**
     * Publishes {@code event}; a failure of an application listener is logged to {@code log}, naming {@code who}
     * (the member, or the stop of the listener's container), which goes on.
     */
    static void publish(ApplicationEventPublisher publisher, KafkoEvent event, Logger log, String who) {
        try {
            publisher.publishEvent(event);
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            log.error("An application listener of {} failed; {} goes on", event, who, e);
        }
    }
}
