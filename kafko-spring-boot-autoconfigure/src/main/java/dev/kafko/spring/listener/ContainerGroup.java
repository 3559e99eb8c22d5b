package dev.kafko.spring.listener;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.springframework.context.Lifecycle;

/**
 * The containers of the listeners that name one {@code containerGroup}, as spring-kafka's: starts, stops and
 * reports them together, so that a part of an application's listeners can be stopped and started as one (the
 * listeners of a tenant, of a maintenance window). Each {@code @KafkoListener(containerGroup = "name")} container
 * joins the bean named {@code <name>.group}, made with the first of them; a container removed from the registry
 * leaves its group. Any thread may call it.
 *
 * <pre>{@code
 * context.getBean("billing.group", ContainerGroup.class).stop();
 * }</pre>
 *
 * <p>A plain {@link Lifecycle}: the context starts each container itself (its {@code autoStartup}), not through its
 * group, and stops them before it stops the group.
 */
public class ContainerGroup implements Lifecycle {

    /** The suffix of the name of a group's bean: {@code <name>.group}. */
    public static final String BEAN_NAME_SUFFIX = ".group";

    private final String name;
    private final List<MessageListenerContainer> containers = new ArrayList<>();

    public ContainerGroup(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** The group's name, as {@code containerGroup} gives it. */
    public String getName() {
        return name;
    }

    /** Adds containers; one already in the group (that very object, not an equal one) is not added twice. */
    public synchronized void addContainers(MessageListenerContainer... added) {
        for (MessageListenerContainer container : added) {
            if (indexOf(container) < 0) {
                containers.add(Objects.requireNonNull(container, "container"));
            }
        }
    }

    /** Removes a container; {@code false} when it was not in the group. */
    public synchronized boolean removeContainer(MessageListenerContainer container) {
        int index = indexOf(container);
        if (index < 0) {
            return false;
        }
        containers.remove(index);
        return true;
    }

    /**
     * Puts a container back in the place it had before {@link #removeContainer} took it out: right after the last of
     * {@code before} (those that came before it then) still in the group, or first. A failed unregistration puts its
     * container back so, as if it had never left; one in the group already stays where it is.
     */
    public synchronized void restoreContainer(MessageListenerContainer container,
                                              List<MessageListenerContainer> before) {
        Objects.requireNonNull(container, "container");
        if (indexOf(container) >= 0) {
            return;
        }
        int at = 0;
        for (int i = before.size() - 1; i >= 0 && at == 0; i--) {
            at = indexOf(before.get(i)) + 1;
        }
        containers.add(at, container);
    }

    /** Whether the container is in the group. */
    public synchronized boolean contains(MessageListenerContainer container) {
        return indexOf(container) >= 0;
    }

    /**
     * The container's place in the group, or -1. By identity, as the registry holds containers: one equal to it (a
     * record, a generated equals) is another container, which a start that listed this one must not take for it.
     */
    private int indexOf(MessageListenerContainer container) {
        for (int i = 0; i < containers.size(); i++) {
            if (containers.get(i) == container) {
                return i;
            }
        }
        return -1;
    }

    /** The ids of the group's listeners, in the order they joined. */
    public synchronized List<String> getListenerIds() {
        return containers.stream().map(MessageListenerContainer::getListenerId).toList();
    }

    /** The group's containers, in the order they joined. */
    public synchronized Collection<MessageListenerContainer> getContainers() {
        return List.copyOf(containers);
    }

    /** Whether no container of the group runs (also when the group is empty). */
    public boolean allStopped() {
        return getContainers().stream().noneMatch(MessageListenerContainer::isRunning);
    }

    /**
     * Starts every container of the group that is not running, in the order they joined; not one that left the group
     * meanwhile (removed from the registry, which takes it out of its group before it stops it): a kafko container is
     * checked for under its own lock, on which its stop is serialized, another is stopped again when it left as it
     * started.
     */
    @Override
    public void start() {
        for (MessageListenerContainer container : getContainers()) {
            if (container instanceof ConcurrentMessageListenerContainer) {
                synchronized (container) {
                    if (contains(container) && !container.isRunning()) {
                        container.start();
                    }
                }
            } else if (contains(container) && !container.isRunning()) {
                container.start();
                if (!contains(container)) {
                    container.stop();
                }
            }
        }
    }

    /**
     * Stops every container of the group, one after the other, each gracefully (see
     * {@link MessageListenerContainer#stop()}). A container whose {@code stop()} throws ends it there, as
     * spring-kafka's: the exception is thrown, and the containers after it are left running.
     */
    @Override
    public void stop() {
        for (MessageListenerContainer container : getContainers()) {
            container.stop();
        }
    }

    /** Whether any container of the group runs. */
    @Override
    public boolean isRunning() {
        return !allStopped();
    }

    @Override
    public String toString() {
        return "ContainerGroup '" + name + "' " + getListenerIds();
    }
}
