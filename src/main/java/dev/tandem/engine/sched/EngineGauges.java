package dev.tandem.engine.sched;

import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.engine.kv.RadixPrefixCache;
import java.util.concurrent.CompletableFuture;

/**
 * The counts an engine's stats report of its scheduler: running, waiting and parked requests, free
 * and cached KV pages. The engine thread publishes them together after each step and before a
 * command's reply; any thread reads the last set published, never a half-updated one.
 */
final class EngineGauges {
  private record Snapshot(int running, int waiting, int parked, int free, int cached) {}

  private final BatchScheduler scheduler;
  private final KvReceiveSide receiving;
  private final PagedKvCache kv;
  private volatile Snapshot last;

  EngineGauges(BatchScheduler scheduler, KvReceiveSide receiving, PagedKvCache kv) {
    this.scheduler = scheduler;
    this.receiving = receiving;
    this.kv = kv;
    this.last = new Snapshot(0, 0, 0, kv.pages().numFree(), 0);
  }

  /** Publishes the counts as they are now (on the engine thread). */
  void publish() {
    RadixPrefixCache cache = scheduler.cache();
    last = new Snapshot(scheduler.running.size(), scheduler.waiting.size(),
        receiving.parkedCount(), kv.pages().numFree(), cache == null ? 0 : cache.cachedPages());
  }

  /**
   * A future for a command to complete; {@code reply} completes the same way, after the counts
   * are published when that happens on {@code engineThread}. A client that sees a command's reply
   * must not then read older counts (prep_recv's parked count and reserved pages), as for outputs
   * (the engine's loop publishes before it delivers them).
   */
  <T> CompletableFuture<T> publishedBefore(CompletableFuture<T> reply, Thread engineThread) {
    CompletableFuture<T> command = new CompletableFuture<>();
    command.whenComplete((value, error) -> {
      if (Thread.currentThread() == engineThread) {
        publish();
      }
      if (error != null) {
        reply.completeExceptionally(error);
      } else {
        reply.complete(value);
      }
    });
    return command;
  }

  /** The last counts published, with the engine's throughput and counters. */
  EngineStats stats(double tokensPerSecond, EngineCounters counters) {
    Snapshot s = last;
    return new EngineStats(s.running(), s.waiting(), s.parked(), s.free(), kv.numPages(),
        s.cached(), tokensPerSecond, counters);
  }
}
