/**
 * {@link dev.kafko.spring.annotation.KafkoListener}, {@link dev.kafko.spring.annotation.EnableKafko} and the bean post-processor that turns annotated methods into endpoints. It collects; it never starts a container.
 */
@NullMarked
package dev.kafko.spring.annotation;

import org.jspecify.annotations.NullMarked;
