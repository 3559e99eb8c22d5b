package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a listener's container at its first failure, as spring-kafka's {@code CommonContainerStoppingErrorHandler}:
 * no retry, no recovery, nothing committed past the failed records. Every member of the container stops after its
 * records in hand, and the failed records are delivered again when the container starts again
 * ({@code registry.getListenerContainer(id).start()}, or the application's next start). For records that must never
 * be skipped and that a person should look at first; the failure is logged at ERROR naming the listener and the
 * records polled (those delivered again, not what a container interceptor gave the listener in their place), and the
 * container publishes its {@link dev.kafko.spring.event.ConcurrentContainerStoppedEvent}. Define it as the
 * {@link KafkoErrorHandler} bean, or give it to one factory with {@code setCommonErrorHandler}. Stateless: one
 * instance serves every container.
 */
public final class ContainerStoppingErrorHandler implements KafkoErrorHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ContainerStoppingErrorHandler.class);

    @Override
    public void handle(List<KafkoRecord> records, Exception failure, FailedInvocation invocation) throws Exception {
        // what is not committed and comes again are the polled records: not the partition, offset and number of the
        // records a container interceptor gave the listener in their place (those the handler is handed)
        List<KafkoRecord> polled = invocation instanceof ListenerInvocation listener ? listener.polled() : records;
        KafkoRecord first = polled.get(0);
        LOG.error("Listener '{}' failed on {} record(s) from {}-{} at offset {}; stopping its container: they are not"
                + " committed and will be delivered again when it starts", invocation.listenerId(), polled.size(),
                first.topic(), first.partition(), first.offset(), failure);
        invocation.stopContainer();
        throw failure;
    }
}
