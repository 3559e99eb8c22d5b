package dev.kafko.spring.test;

import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.context.ApplicationContext;

/**
 * Helpers for an application's own tests. With {@code kafko.ephemeral=true} every test context
 * gets its own empty log, deleted when the context closes; {@link #waitForListeners} replaces
 * sleeps and polling loops:
 *
 * <pre>{@code
 * @SpringBootTest(properties = "kafko.ephemeral=true")
 * class OrderFlowTest {
 *     @Autowired KafkoTemplate<String, Order> template;
 *     @Autowired KafkoListenerEndpointRegistry registry;
 *     @Autowired Billing billing;
 *
 *     @Test
 *     void billsEveryOrder() {
 *         template.send("orders", "o-1", new Order("o-1", 42)).join();
 *         KafkoTestUtils.waitForListeners(registry, Duration.ofSeconds(10));
 *         assertThat(billing.invoices()).hasSize(1);
 *     }
 * }
 * }</pre>
 *
 * <p>Waiting means: every running, unpaused listener container has finished (its method returned,
 * or the error handler recovered the record) every record that was in its topics when the call
 * began, or its group has committed past them. Under the {@code record} and {@code batch} ack
 * modes "finished" includes the commit. Under the manual modes a record the listener acknowledged
 * on its own thread is finished once that acknowledgment is committed; one it did not acknowledge
 * (or acknowledged from another thread) counts once processed. A container that was stopped and
 * started again is waited for from its group's commits, so records its last run processed without
 * committing are waited for again. Records sent after the call began are not waited for; paused
 * containers are not waited for. No sleeps: the caller parks until a listener makes progress.
 */
public final class KafkoTestUtils {

    private KafkoTestUtils() {
    }

    /** Waits for the listeners of the context's {@link KafkoListenerEndpointRegistry}. */
    public static void waitForListeners(ApplicationContext context, Duration timeout) {
        waitForListeners(context.getBean(KafkoListenerEndpointRegistry.class), timeout);
    }

    /**
     * Waits until every running listener container caught up with the end offsets of its topics
     * as they are now.
     *
     * @throws AssertionError naming the partitions still behind when {@code timeout} passes
     */
    public static void waitForListeners(KafkoListenerEndpointRegistry registry, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> behind = new ArrayList<>();
        // every container's targets first: the ends of this one moment, whatever the order of the
        // containers (a listener that sends on to another one's topic must not move its target)
        Map<ConcurrentMessageListenerContainer, Map<String, Map<Integer, Long>>> targets = new LinkedHashMap<>();
        for (MessageListenerContainer container : registry.getListenerContainers()) {
            if (container instanceof ConcurrentMessageListenerContainer concurrent && container.isRunning()
                    && !container.isPauseRequested()) {
                targets.put(concurrent, concurrent.endOffsets());
            }
        }
        try {
            for (Map.Entry<ConcurrentMessageListenerContainer, Map<String, Map<Integer, Long>>> e : targets.entrySet()) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                for (String lagging : e.getKey().awaitCaughtUp(e.getValue(), left)) {
                    behind.add(e.getKey().getListenerId() + ": " + lagging);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for kafko listeners", e);
        }
        if (!behind.isEmpty()) {
            throw new AssertionError("kafko listeners did not catch up within " + timeout + ": " + behind);
        }
    }
}
