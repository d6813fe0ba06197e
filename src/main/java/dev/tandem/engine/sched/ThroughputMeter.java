package dev.tandem.engine.sched;

import java.util.ArrayDeque;

/** Tokens per second over a sliding window of recent steps. Thread-safe. */
final class ThroughputMeter {
  private final long windowNanos;
  private final ArrayDeque<long[]> steps = new ArrayDeque<>();
  private long tokensInWindow;

  ThroughputMeter(long windowNanos) {
    this.windowNanos = windowNanos;
  }

  synchronized void record(long nowNanos, long tokens) {
    steps.addLast(new long[] {nowNanos, tokens});
    tokensInWindow += tokens;
    prune(nowNanos);
  }

  synchronized double tokensPerSecond(long nowNanos) {
    prune(nowNanos);
    if (steps.isEmpty()) {
      return 0;
    }
    // over the whole window once it is full, else since the first recorded step
    long span = Math.max(nowNanos - steps.peekFirst()[0], 1_000_000L);
    return tokensInWindow * 1e9 / Math.min(windowNanos, Math.max(span, windowNanos / 10));
  }

  private void prune(long nowNanos) {
    while (!steps.isEmpty() && nowNanos - steps.peekFirst()[0] > windowNanos) {
      tokensInWindow -= steps.removeFirst()[1];
    }
  }
}
