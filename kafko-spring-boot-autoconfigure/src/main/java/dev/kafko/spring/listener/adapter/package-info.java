/**
 * Adapters from a container's records to an annotated listener method, through spring-messaging's handler-method
 * machinery: the record filter ({@code RecordFilterStrategy}) in front of it and the sender of its {@code @SendTo}
 * replies behind it.
 */
@NullMarked
package dev.kafko.spring.listener.adapter;

import org.jspecify.annotations.NullMarked;
