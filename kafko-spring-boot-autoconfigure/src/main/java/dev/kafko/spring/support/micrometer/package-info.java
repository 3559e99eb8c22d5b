/**
 * Micrometer observations of sends and of deliveries to listeners, with the record headers as the carrier of
 * a trace context: {@link dev.kafko.spring.support.micrometer.KafkoTemplateObservation} (a
 * {@link dev.kafko.spring.core.KafkoTemplate} send, from the call until its record is written or
 * refused) and {@link dev.kafko.spring.support.micrometer.KafkoListenerObservation} (one record's delivery
 * to a record listener, its retries and recovery included). Off unless an {@link io.micrometer.observation.ObservationRegistry} is set on the
 * template or the container factory ({@code kafko.template.observation-enabled},
 * {@code kafko.listener.observation-enabled}). Nothing here starts a thread.
 */
@NullMarked
package dev.kafko.spring.support.micrometer;

import org.jspecify.annotations.NullMarked;
