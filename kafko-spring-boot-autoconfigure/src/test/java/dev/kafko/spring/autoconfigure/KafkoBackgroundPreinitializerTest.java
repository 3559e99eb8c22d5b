package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;
import org.springframework.core.io.support.SpringFactoriesLoader;

class KafkoBackgroundPreinitializerTest {

    private static final String TEST_LIST = "META-INF/kafko/test-startup-classes";

    /** The classes of the test list whose static initializer ran. */
    static final Set<String> INITIALIZED = ConcurrentHashMap.newKeySet();

    static final class First {
        static {
            INITIALIZED.add("First");
        }
    }

    static final class Second {
        static {
            INITIALIZED.add("Second");
        }
    }

    /** Notes every name asked of it and every resource read through it; loads through its parent. */
    static final class RecordingLoader extends ClassLoader {

        final List<String> requested = new ArrayList<>();
        final List<String> resources = new ArrayList<>();

        RecordingLoader() {
            super(KafkoBackgroundPreinitializerTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            requested.add(name);
            return super.loadClass(name, resolve);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            resources.add(name);
            return super.getResourceAsStream(name);
        }
    }

    @Test
    void loadsTheListedClassesInOrderSkippingCommentsAndNamesThatDoNotLoadAndInitializesNone() throws Exception {
        RecordingLoader loader = new RecordingLoader();

        new KafkoBackgroundPreinitializer(loader, TEST_LIST, false).preinitialize();

        assertThat(loader.requested).containsExactly(First.class.getName(), "no.such.Clazz", Second.class.getName());
        assertThat(INITIALIZED).as("static initializers run on the threads that use the classes").isEmpty();
        // the check above can see an initialization
        Class.forName(First.class.getName(), true, loader);
        assertThat(INITIALIZED).containsExactly("First");
    }

    @Test
    void switchedOffItReadsAndLoadsNothing() throws Exception {
        RecordingLoader loader = new RecordingLoader();

        new KafkoBackgroundPreinitializer(loader, TEST_LIST, true).preinitialize();

        assertThat(loader.resources).isEmpty();
        assertThat(loader.requested).isEmpty();
    }

    @Test
    void withoutItsListItLoadsNothing() throws Exception {
        RecordingLoader loader = new RecordingLoader();

        new KafkoBackgroundPreinitializer(loader, "META-INF/kafko/no-such-list", false).preinitialize();

        assertThat(loader.resources).containsExactly("META-INF/kafko/no-such-list");
        assertThat(loader.requested).isEmpty();
    }

    @Test
    void bootFindsItAndItReadsTheListTheStarterShips() {
        List<BackgroundPreinitializer> found = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(BackgroundPreinitializer.class);
        assertThat(found).hasAtLeastOneElementOfType(KafkoBackgroundPreinitializer.class);
        assertThat(KafkoBackgroundPreinitializer.class.getClassLoader().getResource(KafkoBackgroundPreinitializer.CLASSES))
                .isNotNull();
    }
}
