package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.AdditionalAnswers.delegatesTo;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;

import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * Request and reply as a spring-kafka {@code ReplyingKafkaTemplate} user expects it: replies matched to their
 * requests under concurrency, timeouts that keep nothing and leave late replies harmless, futures the caller
 * ends itself, a stop during a request and pending requests at a close. {@link ReplyShapesTest} uses its
 * listeners and templates.
 */
class RequestReplyAcceptanceTest {

    static final Map<String, AtomicInteger> SEEN = new ConcurrentHashMap<>();
    static volatile CountDownLatch gate = new CountDownLatch(0);

    record Loose(String v) {
    }

    /** A reply type that refuses some values with an {@link Error}, as an {@code assert} in a constructor does. */
    record Strict(String v) {
        Strict {
            if (v.startsWith("bad")) {
                throw new AssertionError("refused " + v);
            }
        }
    }

    static class Service {
        @KafkoListener(id = "rr-upper", topics = "rr.requests", concurrency = "2")
        @SendTo
        String upper(String text) {
            SEEN.computeIfAbsent(text, t -> new AtomicInteger()).incrementAndGet();
            return "R:" + text;
        }

        @KafkoListener(id = "rr-gated", topics = "rr.gated")
        @SendTo
        String gated(String text) throws InterruptedException {
            gate.await(30, TimeUnit.SECONDS);
            return "late:" + text;
        }

        @KafkoListener(id = "rr-throws", topics = "rr.throws", errorHandler = "fallbackReply")
        @SendTo
        String throwsHandled(String text) {
            throw new IllegalStateException("refused " + text);
        }

        @KafkoListener(id = "rr-throws-bare", topics = "rr.throws.bare")
        @SendTo
        String throwsBare(String text) {
            throw new IllegalStateException("refused " + text);
        }

        @KafkoListener(id = "rr-null", topics = "rr.null")
        @SendTo
        String returnsNull(String text) {
            return null;
        }

        @KafkoListener(id = "rr-future", topics = "rr.future")
        @SendTo
        CompletableFuture<String> future(String text) {
            return CompletableFuture.supplyAsync(() -> "async:" + text);
        }

        @KafkoListener(id = "rr-strict", topics = "rr.strict")
        @SendTo
        Loose strict(String text) {
            return new Loose(text);
        }

        @KafkoListener(id = "rr-message", topics = "rr.message")
        @SendTo
        Message<String> message(String text) {
            return MessageBuilder.withPayload("msg:" + text).setHeader("x-extra", "yes").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Service service() {
            return new Service();
        }

        @Bean
        KafkoListenerErrorHandler fallbackReply() {
            return (message, exception) -> "fallback:" + exception.getCause().getMessage();
        }

        @Bean
        ReplyingKafkoTemplate<String, String, String> requester(KafkoTemplate<String, String> kafkoTemplate,
                                                                LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "rr.replies", String.class);
        }

        @Bean
        ReplyingKafkoTemplate<String, String, Strict> strictRequester(KafkoTemplate<String, String> kafkoTemplate,
                                                                      LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "rr.strict.replies", Strict.class);
        }
    }

    static final ApplicationContextRunner RUNNER = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=1",
                    "kafko.topics[rr.requests].partitions=4", "kafko.topics[rr.replies].partitions=3");

    @SuppressWarnings("unchecked")
    static ReplyingKafkoTemplate<String, String, String> requester(
            org.springframework.context.ApplicationContext context) {
        return context.getBean("requester", ReplyingKafkoTemplate.class);
    }

    @Test
    void eightThreadsOfFiveHundredRequestsEachGetTheirOwnReplyExactlyOnce() throws Exception {
        SEEN.clear();
        RUNNER.run(context -> {
            assertThat(context).hasNotFailed();
            ReplyingKafkoTemplate<String, String, String> rr = requester(context);
            rr.setDefaultReplyTimeout(Duration.ofSeconds(60));
            int threads = 8;
            int each = 500;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<List<String>>> mismatches = new ArrayList<>();
                CountDownLatch start = new CountDownLatch(1);
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    mismatches.add(pool.submit(() -> {
                        start.await();
                        List<RequestReplyFuture<String, String, String>> futures = new ArrayList<>(each);
                        for (int i = 0; i < each; i++) {
                            String text = "t" + thread + "-" + i;
                            // half keyed, half not: both route their replies back
                            futures.add(i % 2 == 0 ? rr.sendAndReceive("rr.requests", text, text)
                                    : rr.sendAndReceive("rr.requests", text));
                        }
                        List<String> wrong = new ArrayList<>();
                        for (int i = 0; i < each; i++) {
                            String reply = futures.get(i).get(60, TimeUnit.SECONDS);
                            if (!("R:t" + thread + "-" + i).equals(reply)) {
                                wrong.add(i + "->" + reply);
                            }
                        }
                        return wrong;
                    }));
                }
                start.countDown();
                for (Future<List<String>> m : mismatches) {
                    assertThat(m.get(120, TimeUnit.SECONDS)).isEmpty();
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(rr.pendingReplies()).isZero();
            assertThat(SEEN).hasSize(threads * each);
            assertThat(SEEN.values()).allMatch(n -> n.get() == 1);
        });
    }

    @Test
    void aTimedOutRequestFailsTypedItsLateReplyIsDroppedAndNothingIsKeptPerRequest() {
        RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = requester(context);
            gate = new CountDownLatch(1);
            RequestReplyFuture<String, String, String> slow = rr.sendAndReceive("rr.gated", null, null, "slow",
                    Duration.ofMillis(100));
            assertThatThrownBy(() -> slow.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(KafkoReplyTimeoutException.class)
                    .hasMessageContaining("rr.replies").hasMessageContaining("PT0.1S").hasMessageContaining("rr.gated");
            assertThat(rr.pendingReplies()).isZero();
            // the late reply comes; the next request on the same listener is answered after it
            gate.countDown();
            assertThat(rr.sendAndReceive("rr.gated", "next").get(10, TimeUnit.SECONDS)).isEqualTo("late:next");
            assertThat(slow).isCompletedExceptionally();
            assertThat(rr.pendingReplies()).isZero();

            // many timeouts keep nothing
            List<RequestReplyFuture<String, String, String>> lost = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                lost.add(rr.sendAndReceive("rr.nobody", null, null, "x" + i, Duration.ofMillis(1)));
            }
            CompletableFuture.allOf(lost.toArray(CompletableFuture[]::new)).handle((r, e) -> null).get(30, TimeUnit.SECONDS);
            assertThat(lost).allMatch(CompletableFuture::isCompletedExceptionally);
            assertThat(rr.pendingReplies()).isZero();
            assertThat(rr.sendAndReceive("rr.requests", "after").get(10, TimeUnit.SECONDS)).isEqualTo("R:after");
        });
    }

    /**
     * A future the caller ends itself ({@code cancel}, {@code orTimeout}, {@code complete}) is no longer waited for:
     * its request leaves the pending map. It stayed there for good, since its timer was cancelled with the future
     * and no reply would ever remove it.
     */
    @Test
    void aFutureTheCallerCancelsOrTimesOutItselfKeepsNothing() {
        RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = requester(context);
            List<RequestReplyFuture<String, String, String>> ended = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                RequestReplyFuture<String, String, String> f = rr.sendAndReceive("rr.nobody", null, null, "c" + i,
                        Duration.ofHours(1));
                ended.add(f);
                switch (i % 3) {
                    case 0 -> f.cancel(true);
                    case 1 -> f.complete("mine");
                    default -> f.orTimeout(1, TimeUnit.MILLISECONDS);
                }
            }
            CompletableFuture.allOf(ended.toArray(CompletableFuture[]::new)).handle((r, e) -> null).get(30, TimeUnit.SECONDS);
            assertThat(rr.pendingReplies()).isZero();
            // the template goes on answering
            assertThat(rr.sendAndReceive("rr.requests", "still").get(10, TimeUnit.SECONDS)).isEqualTo("R:still");
            assertThat(rr.pendingReplies()).isZero();
        });
    }

    /**
     * A stop that comes while a request is being made (here: while the template reads the request's headers) fails
     * it, as it fails the requests already waiting. The request was written and waited out its whole timeout (an hour
     * here) on a template that no longer read replies. Four threads sending through a stop hit the same window.
     */
    @Test
    void aStopWhileARequestIsMadeLeavesItNotWaiting() {
        RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = requester(context);
            MessageHeaders headers = new MessageHeaders(Map.of(KafkoHeaders.TOPIC, "rr.nobody"));
            Message<String> stopsTheTemplate = new Message<>() {
                @Override
                public String getPayload() {
                    return "made during a stop";
                }

                @Override
                public MessageHeaders getHeaders() {
                    rr.stop();
                    return headers;
                }
            };
            assertThatThrownBy(() -> rr.sendAndReceive(stopsTheTemplate, Duration.ofHours(1)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("not running");
            assertThat(rr.pendingReplies()).isZero();
            assertThat(context.getBean(Kafko.class).topic("rr.nobody")).as("nothing was sent").isEmpty();
        });
    }

    /** Twenty requests to a topic nobody answers, sent (each waits 5 minutes for its reply). */
    private static List<RequestReplyFuture<String, String, String>> twentyWaiting(
            ReplyingKafkoTemplate<String, String, String> rr) throws Exception {
        List<RequestReplyFuture<String, String, String>> before = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            before.add(rr.sendAndReceive("rr.nobody", null, null, "before-" + i, Duration.ofMinutes(5)));
        }
        CompletableFuture.allOf(before.stream().map(RequestReplyFuture::getSendFuture)
                .toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        return before;
    }

    /**
     * A stop fails the requests waiting when it stops, not those of a run started since: here a callback of a request
     * the stop fails restarts the template and makes new requests, on the stopping thread, while the stop is still
     * failing what waited. Each new request must get its reply.
     */
    @Test
    void aStopFailsOnlyTheRequestsWaitingWhenItStoppedNotThoseOfARestart() {
        RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = requester(context);
            List<RequestReplyFuture<String, String, String>> before = twentyWaiting(rr);
            List<RequestReplyFuture<String, String, String>> after = new ArrayList<>();
            AtomicInteger failed = new AtomicInteger();
            before.forEach(f -> f.whenComplete((reply, failure) -> {
                if (failed.getAndIncrement() == 0) { // the first the stop fails: the others are still in its map
                    rr.start();
                    for (int i = 0; i < 50; i++) {
                        after.add(rr.sendAndReceive("rr.requests", null, null, "after-" + i, Duration.ofSeconds(30)));
                    }
                }
            }));
            rr.stop();
            assertThat(before).allSatisfy(f -> assertThatThrownBy(() -> f.get(0, TimeUnit.SECONDS)).cause()
                    .hasMessageContaining("stopped"));
            assertThat(rr.isRunning()).isTrue();
            assertThat(after).hasSize(50);
            for (int i = 0; i < 50; i++) {
                assertThat(after.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("R:after-" + i);
            }
        });
    }

    /**
     * As {@link #aStopFailsOnlyTheRequestsWaitingWhenItStoppedNotThoseOfARestart}, for a reply reader that failed: a
     * callback of a request it fails starts the template again (on the failed reader's thread) and makes requests,
     * which must get their replies.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aFailedReplyReaderFailsOnlyTheRequestsWaitingThenNotThoseOfARestart() {
        RUNNER.run(context -> {
            LogBackend real = context.getBean(LogBackend.class);
            AtomicBoolean failNextPoll = new AtomicBoolean();
            LogBackend backend = mock(LogBackend.class, delegatesTo(real));
            doAnswer(call -> {
                BackendConsumer c = real.groupConsumer(call.getArgument(0), call.getArgument(1), call.getArgument(2),
                        call.getArgument(3));
                BackendConsumer failing = mock(BackendConsumer.class, delegatesTo(c));
                doAnswer(poll -> {
                    if (failNextPoll.getAndSet(false)) {
                        throw new IllegalStateException("a poll that fails, once");
                    }
                    return c.poll(poll.getArgument(0));
                }).when(failing).poll(any());
                return failing;
            }).when(backend).groupConsumer(anyString(), anyString(), anyInt(), any());
            ReplyingKafkoTemplate<String, String, String> rr = new ReplyingKafkoTemplate<>(
                    context.getBean(KafkoTemplate.class), backend, context.getBean(RecordMessageConverter.class),
                    "rr.failing.replies", String.class);
            rr.start();
            try {
                List<RequestReplyFuture<String, String, String>> before = twentyWaiting(rr);
                List<RequestReplyFuture<String, String, String>> after = new ArrayList<>();
                CountDownLatch restarted = new CountDownLatch(1);
                AtomicInteger failed = new AtomicInteger();
                before.forEach(f -> f.whenComplete((reply, failure) -> {
                    if (failed.getAndIncrement() == 0) { // the first the reader fails: the others are still waiting
                        try {
                            rr.start();
                            for (int i = 0; i < 50; i++) {
                                after.add(rr.sendAndReceive("rr.requests", null, null, "after-" + i,
                                        Duration.ofSeconds(30)));
                            }
                        } finally {
                            restarted.countDown();
                        }
                    }
                }));
                failNextPoll.set(true);
                assertThat(restarted.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(before).allSatisfy(f -> assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).cause()
                        .hasMessageContaining("reply reader of 'rr.failing.replies' ended"));
                assertThat(after).hasSize(50);
                for (int i = 0; i < 50; i++) {
                    assertThat(after.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("R:after-" + i);
                }
                assertThat(rr.isRunning()).isTrue();
            } finally {
                rr.stop();
            }
        });
    }

    @Test
    void closingTheContextFailsThePendingRequestsAndEndsTheReplyThread() {
        List<RequestReplyFuture<String, String, String>> pending = new ArrayList<>();
        RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = requester(context);
            for (int i = 0; i < 20; i++) {
                pending.add(rr.sendAndReceive("rr.nobody", null, null, "p" + i, Duration.ofMinutes(5)));
            }
            CompletableFuture.allOf(pending.stream().map(RequestReplyFuture::getSendFuture)
                    .toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertThat(pending).noneMatch(CompletableFuture::isDone);
        });
        assertThat(pending).allSatisfy(f -> assertThatThrownBy(() -> f.get(0, TimeUnit.SECONDS))
                .cause().isInstanceOf(KafkoException.class).hasMessageContaining("stopped"));
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("kafko-replies-"));
    }
}
