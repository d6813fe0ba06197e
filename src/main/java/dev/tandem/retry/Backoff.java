package dev.tandem.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * An exponential back-off: the wait before retry number {@code n} (1 for the first) is
 * {@code first * 2^(n-1)}, capped at {@code max}. Pure: callers keep their own count of tries,
 * and their own rules about when to stop or start counting again.
 *
 * <p>It has a package of its own because its users — the fleet's restart policy, the router's
 * busy-engine retry and an engine joining the world root — share no lower package it could
 * belong to: {@code api} holds wire types, {@code bus} the event-bus contract, {@code config}
 * options; none of them is about time, and {@code world} may import none of {@code fleet} or
 * {@code router}.
 */
public record Backoff(Duration first, Duration max) {
  public Backoff {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(max, "max");
    if (first.isNegative() || first.isZero()) {
      throw new IllegalArgumentException("the first back-off must be positive, got " + first);
    }
    if (max.compareTo(first) < 0) {
      throw new IllegalArgumentException("the back-off cap " + max + " is below its first delay " + first);
    }
  }

  public static Backoff ofMillis(long firstMs, long maxMs) {
    return new Backoff(Duration.ofMillis(firstMs), Duration.ofMillis(maxMs));
  }

  /** The wait before retry number {@code attempt} (1 for the first; lower counts as 1). */
  public Duration delay(int attempt) {
    int doublings = Math.max(attempt - 1, 0);
    long firstNanos = first.toNanos();
    if (doublings >= Long.numberOfLeadingZeros(firstNanos)) {
      return max; // first * 2^doublings would not fit in a long: far past any cap
    }
    long nanos = firstNanos << doublings;
    return nanos > max.toNanos() ? max : Duration.ofNanos(nanos);
  }
}
