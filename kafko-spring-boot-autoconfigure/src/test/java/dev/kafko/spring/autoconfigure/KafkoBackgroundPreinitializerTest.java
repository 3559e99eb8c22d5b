package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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

    static class Base {
    }

    static final class Sub extends Base {
    }

    /** Its verifier checks that a {@link Sub} is a {@link Base}, which loads {@code Sub}; nothing else does. */
    static final class Linked {
        static {
            INITIALIZED.add("Linked");
        }

        Base make() {
            return new Sub();
        }
    }

    /**
     * Defines {@link Linked}, {@link Base} and {@link Sub} itself, from this class path's bytes, and notes each
     * name asked of it: a name only the verifier asks for shows that a class was linked.
     */
    static final class DefiningLoader extends ClassLoader {

        private static final List<String> OWN = List.of(Linked.class.getName(), Base.class.getName(), Sub.class.getName());

        final List<String> requested = new ArrayList<>();

        DefiningLoader() {
            super(KafkoBackgroundPreinitializerTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!OWN.contains(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                requested.add(name);
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
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
    void itLinksTheClassesItLoadsWithoutInitializingThem() throws Exception {
        DefiningLoader loader = new DefiningLoader();

        new KafkoBackgroundPreinitializer(loader, "META-INF/kafko/test-linked-classes", false).preinitialize();

        // only verifying Linked's code asks for Sub: loading it alone does not
        assertThat(loader.requested).contains(Linked.class.getName(), Sub.class.getName());
        assertThat(INITIALIZED).as("linking runs no static initializer").doesNotContain("Linked");
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
