package dev.tandem.router.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * How long each prefill engine would take to finish the prompts this router has sent it: the
 * prompt tokens of its unfinished {@code remote_send} calls over its measured prefill rate.
 *
 * <p>The rate is tokens finished per second of busy time, busy meaning at least one of our
 * prefills was outstanding there. Counting busy time rather than each call's own duration keeps
 * the estimate right when the engine batches several prompts into one step (they finish
 * together) and when calls queue inside the engine. Old work fades: once the busy time passes
 * {@link #HALF_LIFE_NANOS}, both sums are halved, so the rate follows the last few seconds of
 * work. Before the first prefill finished there is no rate, and {@link #waitMillis} is NaN.
 *
 * <p>Counts only what this router sent; another router or client on the same engine is not
 * seen (the engine's own queue gauge still is, in {@link EngineSnapshot#score()}). Shared by the
 * router's event loops: every method holds its lock; no I/O.
 */
public final class PrefillBacklog {

  static final long HALF_LIFE_NANOS = 10_000_000_000L;

  private static final class Engine {
    int outstanding;
    long tokens;
    long lastEventNanos;
    double busyNanos;
    double doneTokens;
  }

  private final Map<Integer, Engine> engines = new HashMap<>();

  /** A prefill of {@code tokens} prompt tokens was sent to {@code engine}. */
  public synchronized void sent(int engine, int tokens, long nowNanos) {
    Engine e = engines.computeIfAbsent(engine, k -> new Engine());
    advance(e, nowNanos);
    e.outstanding++;
    e.tokens += tokens;
    fade(e);
  }

  /** That prefill ended: {@code finished} when the engine did the work, false when it failed. */
  public synchronized void ended(int engine, int tokens, boolean finished, long nowNanos) {
    Engine e = engines.get(engine);
    if (e == null || e.outstanding == 0) {
      return;
    }
    advance(e, nowNanos);
    e.outstanding--;
    e.tokens -= tokens;
    if (finished) {
      e.doneTokens += tokens;
    }
    fade(e);
  }

  /** Prompt tokens sent to {@code engine} and not finished yet. */
  public synchronized long tokens(int engine) {
    Engine e = engines.get(engine);
    return e == null ? 0 : e.tokens;
  }

  /** Measured prefill rate of {@code engine} in tokens per second, NaN before any finished. */
  public synchronized double tokensPerSecond(int engine) {
    Engine e = engines.get(engine);
    if (e == null || e.doneTokens <= 0 || e.busyNanos <= 0) {
      return Double.NaN;
    }
    return e.doneTokens / (e.busyNanos / 1e9);
  }

  /**
   * Milliseconds {@code engine} would need for its backlog plus {@code moreTokens}: 0 when it has
   * nothing outstanding and {@code moreTokens} is 0, NaN while its rate is unknown.
   */
  public synchronized double waitMillis(int engine, int moreTokens) {
    double rate = tokensPerSecond(engine);
    if (Double.isNaN(rate)) {
      return Double.NaN;
    }
    return (tokens(engine) + moreTokens) / rate * 1000;
  }

  /** Forget an engine (restarted: its old rate and backlog say nothing about the new process). */
  public synchronized void forget(int engine) {
    engines.remove(engine);
  }

  private static void advance(Engine e, long nowNanos) {
    if (e.outstanding > 0 && nowNanos > e.lastEventNanos) {
      e.busyNanos += nowNanos - e.lastEventNanos;
    }
    e.lastEventNanos = nowNanos;
  }

  private static void fade(Engine e) {
    if (e.busyNanos > HALF_LIFE_NANOS) {
      e.busyNanos /= 2;
      e.doneTokens /= 2;
    }
  }
}
