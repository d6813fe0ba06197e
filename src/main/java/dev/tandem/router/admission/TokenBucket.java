package dev.tandem.router.admission;

/**
 * A per-minute token bucket: holds at most {@code perMinute} units and refills continuously at
 * {@code perMinute} per minute. Settling after the fact ({@link #settle}) may leave it below zero
 * (a request used more than it reserved): later requests then wait until it refilled. Pure logic
 * with an explicit clock; thread-safe.
 */
final class TokenBucket {

  private static final long MINUTE_NANOS = 60_000_000_000L;

  private final long capacity;
  private double level;
  private long lastNanos;

  TokenBucket(long perMinute, long nowNanos) {
    this.capacity = perMinute;
    this.level = perMinute;
    this.lastNanos = nowNanos;
  }

  long capacity() {
    return capacity;
  }

  synchronized long available(long nowNanos) {
    refill(nowNanos);
    return (long) Math.floor(level);
  }

  synchronized boolean has(long units, long nowNanos) {
    refill(nowNanos);
    return level >= units;
  }

  synchronized void take(long units, long nowNanos) {
    refill(nowNanos);
    level -= units;
  }

  /** Gives back {@code reserved - used} (or takes the excess): a reservation settled. */
  synchronized void settle(long reserved, long used, long nowNanos) {
    refill(nowNanos);
    level = Math.min(capacity, level + reserved - used);
  }

  /** Nanoseconds until {@code units} are available (0 if they are now). */
  synchronized long nanosUntil(long units, long nowNanos) {
    refill(nowNanos);
    double missing = units - level;
    return missing <= 0 ? 0 : (long) Math.ceil(missing * MINUTE_NANOS / capacity);
  }

  private void refill(long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed > 0) {
      level = Math.min(capacity, level + (double) elapsed * capacity / MINUTE_NANOS);
      lastNanos = nowNanos;
    }
  }
}
