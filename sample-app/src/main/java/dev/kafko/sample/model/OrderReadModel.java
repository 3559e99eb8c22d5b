package dev.kafko.sample.model;

import dev.kafko.sample.order.OrderPlaced;
import dev.kafko.sample.order.PaymentCaptured;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The in-memory read model: every order's latest status, and counts and amounts per status. Any
 * thread may call any method: the replay at start-up and the three model listeners write, the
 * endpoints and the load generator read.
 *
 * <p><b>Idempotent per order id.</b> An event moves an order only forward (PENDING → PAID or
 * REJECTED); an event for a status the order already has, or has passed, changes nothing. The
 * counts change only on such a move, so an event seen twice — replayed and then delivered again,
 * or a payment sent twice after a crash — is never counted twice, and the order in which the three
 * topics are read does not matter (a payment seen before its order goes straight to PAID).
 */
@Component
public class OrderReadModel {

    private final Clock clock;
    private final LatencyRecorder latency;
    private final Map<String, OrderView> orders = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition finalized = lock.newCondition();
    /** Guarded by lock. */
    private final Map<OrderStatus, Long> counts = new EnumMap<>(OrderStatus.class);
    /** Guarded by lock. */
    private final Map<OrderStatus, BigDecimal> amounts = new EnumMap<>(OrderStatus.class);
    /** Guarded by lock. */
    private long finalCount;

    public OrderReadModel(Clock clock, LatencyRecorder latency) {
        this.clock = clock;
        this.latency = latency;
        for (OrderStatus s : OrderStatus.values()) {
            counts.put(s, 0L);
            amounts.put(s, BigDecimal.ZERO);
        }
    }

    /**
     * An order was placed.
     *
     * @param live false while replaying: only live events feed the end-to-end latency
     */
    public void placed(OrderPlaced order, boolean live) {
        move(view(order, OrderStatus.PENDING, null), live);
    }

    /** An order's payment was captured. */
    public void paid(PaymentCaptured payment, boolean live) {
        move(new OrderView(payment.orderId(), payment.customer(), payment.amount(), payment.itemCount(),
                OrderStatus.PAID, payment.orderCreatedAt(), null), live);
    }

    /** An order was rejected (it reached {@code orders.DLT}). */
    public void rejected(OrderPlaced order, @Nullable String reason, boolean live) {
        move(view(order, OrderStatus.REJECTED, reason), live);
    }

    private static OrderView view(OrderPlaced order, OrderStatus status, @Nullable String reason) {
        return new OrderView(order.id(), order.customer(), order.amount(), order.items().size(), status,
                order.createdAt(), reason);
    }

    /** What an order adds to its status's amount: nothing when it has none (a line without a price). */
    private static BigDecimal counted(OrderView view) {
        BigDecimal amount = view.amount();
        return amount == null ? BigDecimal.ZERO : amount;
    }

    private void move(OrderView next, boolean live) {
        lock.lock();
        try {
            OrderView current = orders.get(next.id());
            if (current != null && current.status().compareTo(next.status()) >= 0) {
                return; // seen before: nothing moves, nothing is counted again
            }
            if (current != null) {
                counts.merge(current.status(), -1L, Long::sum);
                amounts.merge(current.status(), counted(current).negate(), BigDecimal::add);
            }
            counts.merge(next.status(), 1L, Long::sum);
            amounts.merge(next.status(), counted(next), BigDecimal::add);
            orders.put(next.id(), next);
            if (next.status().isFinal()) {
                finalCount++;
                finalized.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (live && next.status().isFinal()) {
            latency.record(Duration.between(next.createdAt(), clock.instant()));
        }
    }

    public Optional<OrderView> find(String id) {
        return Optional.ofNullable(orders.get(id));
    }

    /** Counts and amounts per status, taken at one instant. */
    public Totals totals() {
        lock.lock();
        try {
            return new Totals(orders.size(), new EnumMap<>(counts), new EnumMap<>(amounts));
        } finally {
            lock.unlock();
        }
    }

    /** How many orders are PAID or REJECTED. */
    public long finalCount() {
        lock.lock();
        try {
            return finalCount;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until at least {@code count} orders are PAID or REJECTED.
     *
     * @return whether they are, false when {@code timeout} passed first
     */
    public boolean awaitFinalCount(long count, Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (finalCount < count) {
                if (left <= 0) {
                    return false;
                }
                left = finalized.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts and amounts per status.
     *
     * @param orders how many orders the model knows
     * @param counts orders per status
     * @param amounts the summed amounts per status
     */
    public record Totals(long orders, Map<OrderStatus, Long> counts, Map<OrderStatus, BigDecimal> amounts) {

        public long count(OrderStatus status) {
            return counts.getOrDefault(status, 0L);
        }

        public BigDecimal amount(OrderStatus status) {
            return amounts.getOrDefault(status, BigDecimal.ZERO);
        }
    }
}
