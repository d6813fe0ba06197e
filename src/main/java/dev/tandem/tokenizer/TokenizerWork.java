package dev.tandem.tokenizer;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.Callable;

/**
 * Where one request's tokenizer work runs (a prompt rendered and tokenized, ids decoded): on the
 * thread that asks, the request's event loop, when the work is small, else on a worker thread.
 *
 * <p>A short prompt costs tens of microseconds to render and tokenize. Handing it to a worker and
 * back costs more than that: two thread wake-ups, and at low load a worker that comes back cold.
 * Short chats at one connection through the router waited 0.57-0.67 ms (p50) with the hand-off
 * and 0.39-0.47 ms without it (BENCHMARKS.md). A long prompt would hold every connection of the
 * loop for as long as it takes (about 0.1 us a char), so it goes to a worker.
 *
 * <p>The line is {@link PrefixIds#MIN_CHARS}: a text short enough to run here is never looked up
 * among the kept beginnings, so an event loop never waits for that cache's lock.
 */
public final class TokenizerWork {
  /** The longest text rendered or tokenized on the event loop. */
  public static final int MAX_LOOP_CHARS = PrefixIds.MIN_CHARS - 1;
  /** The most token ids decoded on the event loop. */
  public static final int MAX_LOOP_IDS = 256;

  private TokenizerWork() {}

  /** Whether work on a text of {@code chars} chars runs on the asking thread. */
  public static boolean textOnLoop(int chars) {
    return chars <= MAX_LOOP_CHARS;
  }

  /** Whether decoding {@code ids} token ids runs on the asking thread. */
  public static boolean idsOnLoop(int ids) {
    return ids <= MAX_LOOP_IDS;
  }

  /**
   * {@code work} on the asking thread when {@code onLoop}, its result or failure as a completed
   * future; else on a worker thread (unordered), as {@link Vertx#executeBlocking} runs it.
   */
  public static <T> Future<T> run(Vertx vertx, boolean onLoop, Callable<T> work) {
    if (!onLoop) {
      return vertx.executeBlocking(work, false);
    }
    try {
      return Future.succeededFuture(work.call());
    } catch (Exception | StackOverflowError e) { // what a worker would report as the failure
      return Future.failedFuture(e);
    }
  }
}
