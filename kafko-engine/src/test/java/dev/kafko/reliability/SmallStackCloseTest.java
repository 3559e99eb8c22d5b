package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A close called near the top of a thread's stack returns, whatever stack size the JVM accepted for the thread: the
 * stack reserve of B144 is for a close deep in a recursion, not for a thread whose whole stack is small (the JVM's
 * minimum, {@code -Xss144k}, or a {@code Thread} made with a small stack size), where a close worked before B144.
 */
class SmallStackCloseTest {

    @TempDir
    Path tmp;

    /** The child: a close on a thread with {@code args[1]} bytes of stack, at the top of it. */
    public static void main(String[] args) throws Exception {
        Kafko k = Kafko.open(Path.of(args[0]));
        k.createTopic("t");
        k.producer("t").send(null, "v".getBytes(StandardCharsets.UTF_8)).join();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                k.close();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "small-stack", Long.parseLong(args[1]));
        t.start();
        t.join();
        System.out.println("close on the small stack: " + (failure.get() == null ? "returned" : "threw " + failure.get()));
        k.close();
    }

    @Test
    void aCloseAtTheTopOfASmallStackReturns() throws Exception {
        for (long stack : new long[] {1, 140 * 1024}) {
            String log = ChildJvm.run(tmp.resolve("child-" + stack + ".log"), List.of(), SmallStackCloseTest.class,
                    tmp.resolve("d" + stack).toString(), Long.toString(stack));
            assertThat(log).as("stack size %d", stack).contains("close on the small stack: returned");
        }
    }

    @Test
    void aCloseOnTheMainThreadUnderASmallXssReturns() throws Exception {
        String log = ChildJvm.run(tmp.resolve("child-xss.log"), List.of("-Xss144k"), SmallStackCloseTest.class,
                tmp.resolve("xss").toString(), "0"); // 0: the thread gets the -Xss default
        assertThat(log).contains("close on the small stack: returned");
    }
}
