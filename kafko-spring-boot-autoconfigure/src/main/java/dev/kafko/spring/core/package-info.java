/**
 * The sending side ({@link dev.kafko.spring.core.KafkoTemplate}) and the narrow backend seam ({@link dev.kafko.spring.core.LogBackend}) through which the template and the containers reach the log. Only {@link dev.kafko.spring.core.KafkoBackend} and {@link dev.kafko.spring.core.KafkoTopicProvisioner} touch the engine's API.
 */
@NullMarked
package dev.kafko.spring.core;

import org.jspecify.annotations.NullMarked;
