/**
 * Adapters from a container's records to an annotated listener method, through spring-messaging's handler-method machinery.
 */
@NullMarked
package dev.kafko.spring.listener.adapter;

import org.jspecify.annotations.NullMarked;
