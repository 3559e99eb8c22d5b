/**
 * Values shared by the template and the listeners: {@link dev.kafko.spring.support.KafkoHeaders}, {@link dev.kafko.spring.support.SendResult}, {@link dev.kafko.spring.support.Acknowledgment}, the record/message conversion and the instrumentation hook. Nothing here starts a thread.
 */
@NullMarked
package dev.kafko.spring.support;

import org.jspecify.annotations.NullMarked;
