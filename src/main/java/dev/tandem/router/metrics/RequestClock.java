package dev.tandem.router.metrics;

/**
 * The times of one client request, for the latency histograms: arrival, the wait for a slot, the
 * first generated token and the engine that streamed the answer (decode engine in disagg mode).
 * Written by the request's transport and its flow on the request's event loop.
 */
public final class RequestClock {

  private final long arrivedNanos = System.nanoTime();
  private volatile long firstTokenNanos = -1;
  private volatile int engine = -1;
  private volatile int n = 1;

  public long arrivedNanos() {
    return arrivedNanos;
  }

  /** The first text of the answer was generated (later calls keep the first time). */
  public void firstToken() {
    if (firstTokenNanos < 0) {
      firstTokenNanos = System.nanoTime();
    }
  }

  /** Time to the first token, or -1 if none came. */
  public long ttftNanos() {
    long first = firstTokenNanos;
    return first < 0 ? -1 : first - arrivedNanos;
  }

  /** Time per output token after the first: -1 with fewer than two tokens per choice. */
  public long tpotNanos(long endNanos, long completionTokens) {
    long first = firstTokenNanos;
    long perChoice = completionTokens / Math.max(1, n);
    return first < 0 || perChoice < 2 ? -1 : (endNanos - first) / (perChoice - 1);
  }

  public void engine(int id) {
    engine = id;
  }

  /** The id of the engine that served the request, or -1 (its metrics label: "none"). */
  public int engineId() {
    return engine;
  }

  public void choices(int count) {
    n = count;
  }
}
