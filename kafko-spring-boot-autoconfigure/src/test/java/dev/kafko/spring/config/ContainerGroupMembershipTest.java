package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.config.UnregisterDuringStartOfOwnContainersTest.OwnContainer;
import dev.kafko.spring.listener.ContainerGroup;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a {@link ContainerGroup} lists and reports as its containers come, go, start and stop. */
class ContainerGroupMembershipTest {

    /** Its stop fails while {@link #failStop} is set, leaving it running. */
    static final class FailingStop extends OwnContainer {
        volatile boolean failStop = true;

        FailingStop(String id) {
            super(id, false);
        }

        @Override
        public void stop() {
            if (failStop) {
                throw new IllegalStateException(id + " cannot stop");
            }
            super.stop();
        }
    }

    @Test
    void aContainerWhoseUnregistrationFailsStaysInItsGroupsAndJoinsNoOther() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        FailingStop tenant = new FailingStop("tenant");
        OwnContainer other = new OwnContainer("other", false);
        registry.registerListenerContainer(tenant, false);
        registry.registerListenerContainer(other, false);
        ContainerGroup tenants = registry.addToGroup("tenants", tenant);
        ContainerGroup others = registry.addToGroup("others", other);
        tenants.start();
        assertThat(tenant.isRunning()).isTrue();

        assertThatThrownBy(() -> registry.unregisterListenerContainer("tenant"))
                .isInstanceOf(IllegalStateException.class).hasMessage("tenant cannot stop");

        assertThat(registry.getListenerContainer("tenant")).isSameAs(tenant);
        assertThat(tenants.getContainers()).as("still registered: still in its group").containsExactly(tenant);
        assertThat(others.getContainers()).as("never in this group").containsExactly(other);
        tenant.failStop = false;
        tenants.stop();
        assertThat(tenant.isRunning()).as("stopped by its group").isFalse();
        assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(tenant);
        assertThat(tenants.getContainers()).isEmpty();
    }

    @Test
    void aGroupRunsWhileAnyOfItsContainersRunsAndNamesThemInOrder() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer first = new OwnContainer("first", false);
        OwnContainer second = new OwnContainer("second", false);
        registry.registerListenerContainer(first, false);
        registry.registerListenerContainer(second, false);
        ContainerGroup group = registry.addToGroup("tenants", first);
        registry.addToGroup("tenants", second);
        assertThat(registry.addToGroup("tenants", first)).isSameAs(group);
        group.addContainers(second, first);
        assertThat(group).as("each once, in the order they joined")
                .hasToString("ContainerGroup 'tenants' [first, second]");
        assertThat(group.isRunning()).as("none started").isFalse();
        assertThat(group.allStopped()).isTrue();

        second.start();
        assertThat(group.isRunning()).isTrue();
        assertThat(group.allStopped()).isFalse();
        group.stop();
        assertThat(group.isRunning()).isFalse();
        group.start();
        assertThat(first.isRunning()).isTrue();
        assertThat(second.isRunning()).isTrue();
        group.stop();
        assertThat(group.isRunning()).isFalse();
    }

    @Test
    void aContainerPutBackThatIsInTheGroupAlreadyStaysWhereItIsOnce() {
        OwnContainer first = new OwnContainer("first", false);
        OwnContainer second = new OwnContainer("second", false);
        ContainerGroup group = new ContainerGroup("tenants");
        group.addContainers(first, second);

        group.restoreContainer(first, List.of());
        group.restoreContainer(second, List.of());

        assertThat(group.getContainers()).as("each once, in its place").containsExactly(first, second);
    }

    @Test
    void aStopThatThrowsEndsTheGroupsStopThereAsSpringKafkasDoes() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer first = new OwnContainer("first", false);
        FailingStop failing = new FailingStop("failing");
        OwnContainer last = new OwnContainer("last", false);
        ContainerGroup group = null;
        for (OwnContainer container : List.of(first, failing, last)) {
            registry.registerListenerContainer(container, false);
            group = registry.addToGroup("tenants", container);
        }
        group.start();

        ContainerGroup started = group;
        assertThatThrownBy(started::stop).isInstanceOf(IllegalStateException.class).hasMessage("failing cannot stop");

        assertThat(first.isRunning()).as("stopped before the failure").isFalse();
        assertThat(last.isRunning()).as("after the failure: left running").isTrue();
        assertThat(group.isRunning()).isTrue();
    }
}
