package dev.kafko.spring.annotation;

import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpoint;

/**
 * A listener's kind as its container factory's {@link KafkoListenerContainerFactory#setBatchListener} says, where its
 * annotation has no {@code batch} attribute (spring-kafka's precedence: the attribute, then the factory). Applied
 * once the factories exist, before retry topics are planned from {@code RetryTopicConfiguration} beans and before the
 * container is made.
 */
final class BatchByFactory {

    private BatchByFactory() {
    }

    /**
     * The endpoint, a batch or a record listener as {@code factory} says when {@code batchUnset} and the factory
     * says either; else the endpoint itself.
     */
    static KafkoListenerEndpoint apply(KafkoListenerEndpoint endpoint, boolean batchUnset,
                                       KafkoListenerContainerFactory factory) {
        Boolean batch = factory.isBatchListener();
        if (!batchUnset || batch == null || batch == endpoint.batch()) {
            return endpoint;
        }
        return new KafkoListenerEndpoint(endpoint.id(), endpoint.topics(), endpoint.groupId(), endpoint.concurrency(),
                endpoint.autoStartup(), batch, endpoint.ackMode(), endpoint.bean(), endpoint.method(),
                endpoint.replyTopic(), endpoint.containerFactory(), endpoint.replyToHeader(),
                endpoint.recordFilterStrategy(), endpoint.errorHandler(), endpoint.handlers(), endpoint.topicPattern(),
                endpoint.topicPartitions(), endpoint.maxPollRecords(), endpoint.offsetReset(),
                endpoint.clientIdPrefix(), endpoint.containerGroup(), endpoint.splitIterables(), endpoint.info(),
                endpoint.containerPostProcessor(), endpoint.contentTypeConverter());
    }
}
