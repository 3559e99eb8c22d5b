package dev.kafko.sample.load;

import dev.kafko.sample.SampleProperties;
import dev.kafko.sample.model.LatencyRecorder;
import dev.kafko.sample.model.LatencyRecorder.Latencies;
import dev.kafko.sample.model.OrderReadModel;
import dev.kafko.sample.model.OrderStatus;
import dev.kafko.sample.order.Item;
import dev.kafko.sample.order.OrderPublisher;
import dev.kafko.sample.order.OrderRequest;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * The load mode: with {@code sample.load=N} it sends N random orders (seeded) through
 * {@link OrderPublisher} once the application has started, prints progress every second (sends/s,
 * orders finished/s, end-to-end latency p50/p99 of that second), waits for the read model to see
 * every order PAID or REJECTED, and prints a summary. Sends are pipelined (never awaited one by
 * one) in a closed loop: at most {@code sample.load-in-flight} orders are between their send and
 * the read model seeing them finish, so the latency measures the pipeline, not an ever-growing
 * backlog. Runs on the thread that started the application;
 * the progress lines come from a ticker thread it owns.
 */
@Component
public class LoadGenerator implements ApplicationRunner {

    private static final Logger LOG = LoggerFactory.getLogger(LoadGenerator.class);
    private static final int CUSTOMERS = 500;

    private final SampleProperties properties;
    private final OrderPublisher publisher;
    private final OrderReadModel model;
    private final LatencyRecorder latency;
    private volatile @Nullable LoadSummary lastSummary;

    public LoadGenerator(SampleProperties properties, OrderPublisher publisher, OrderReadModel model,
                         LatencyRecorder latency) {
        this.properties = properties;
        this.publisher = publisher;
        this.model = model;
        this.latency = latency;
    }

    @Override
    public void run(ApplicationArguments args) throws InterruptedException {
        if (properties.load() > 0) {
            lastSummary = generate(properties.load());
        }
    }

    /** The summary of the load run at start-up, or null when there was none. */
    public @Nullable LoadSummary lastSummary() {
        return lastSummary;
    }

    /** Sends {@code n} orders and reports; see the class comment. */
    public LoadSummary generate(int n) throws InterruptedException {
        int inFlight = properties.loadInFlight();
        LOG.info("load: sending {} orders (seed {}, at most {} in flight, every {}th invalid)", n,
                properties.loadSeed(), inFlight, properties.loadInvalidEvery());
        Random random = new Random(properties.loadSeed());
        OrderReadModel.Totals before = model.totals();
        long baseline = model.finalCount();
        latency.drain(); // latencies of earlier orders are not this run's
        LongAdder failed = new LongAdder();
        AtomicLong sent = new AtomicLong();
        Progress progress = new Progress(n, sent, baseline);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "load-progress");
            t.setDaemon(true);
            return t;
        });
        long start = System.nanoTime();
        boolean complete = true;
        ticker.scheduleAtFixedRate(progress::tick, 1, 1, TimeUnit.SECONDS);
        try {
            for (int i = 0; i < n && complete; i++) {
                // closed loop: at most inFlight orders between "sent" and "the read model saw it finish"
                complete = model.awaitFinalCount(baseline + i - failed.sum() - inFlight + 1, properties.loadTimeout());
                publisher.publish(request(random, i)).whenComplete((result, failure) -> {
                    if (failure != null) {
                        failed.increment();
                    }
                });
                sent.incrementAndGet();
            }
            complete = complete && model.awaitFinalCount(baseline + n - failed.sum(), properties.loadTimeout());
        } finally {
            ticker.shutdownNow();
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        }
        long totalNanos = System.nanoTime() - start;
        Latencies all = progress.finish();
        OrderReadModel.Totals after = model.totals();
        LoadSummary summary = new LoadSummary(sent.get(), failed.sum(),
                after.count(OrderStatus.PAID) - before.count(OrderStatus.PAID),
                after.count(OrderStatus.REJECTED) - before.count(OrderStatus.REJECTED), complete,
                totalNanos / 1e9, all.percentileMicros(50), all.percentileMicros(99), all.maxMicros());
        LOG.info(summary.line());
        return summary;
    }

    private OrderRequest request(Random random, int i) {
        String customer = "customer-" + random.nextInt(CUSTOMERS);
        int every = properties.loadInvalidEvery();
        boolean invalid = every > 0 && i % every == every - 1;
        if (invalid && random.nextBoolean()) {
            return new OrderRequest(customer, List.of()); // no items
        }
        int lines = 1 + random.nextInt(3);
        List<Item> items = new ArrayList<>(lines);
        for (int l = 0; l < lines; l++) {
            BigDecimal price = BigDecimal.valueOf(100 + random.nextInt(9_900), 2);
            items.add(new Item("sku-" + random.nextInt(1_000), 1 + random.nextInt(5), invalid ? price.negate() : price));
        }
        return new OrderRequest(customer, items);
    }

    /** The once-a-second progress line; {@link #tick()} runs on the ticker, {@link #finish()} after it stopped. */
    private final class Progress {
        private final int total;
        private final AtomicLong sent;
        private final long baseline;
        private final long start = System.nanoTime();
        private Latencies all = new Latencies(new long[0]);
        private long lastSent;
        private long lastDone;
        private long lastTick = start;

        Progress(int total, AtomicLong sent, long baseline) {
            this.total = total;
            this.sent = sent;
            this.baseline = baseline;
        }

        void tick() {
            long now = System.nanoTime();
            long sentNow = sent.get();
            long doneNow = model.finalCount() - baseline;
            Latencies second = latency.drain();
            all = Latencies.merge(all, second);
            double seconds = (now - lastTick) / 1e9;
            LOG.info(String.format(Locale.ROOT, "load: %5.1f s  sent %,d/%,d (%,.0f/s)  done %,d (%,.0f/s)"
                            + "  e2e p50 %s p99 %s (%,d samples)",
                    (now - start) / 1e9, sentNow, total, (sentNow - lastSent) / seconds, doneNow,
                    (doneNow - lastDone) / seconds, LoadSummary.millis(second.percentileMicros(50)),
                    LoadSummary.millis(second.percentileMicros(99)), second.count()));
            lastSent = sentNow;
            lastDone = doneNow;
            lastTick = now;
        }

        Latencies finish() {
            all = Latencies.merge(all, latency.drain());
            return all;
        }
    }
}
