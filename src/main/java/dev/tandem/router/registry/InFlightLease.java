package dev.tandem.router.registry;

import io.vertx.core.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One unit of an engine's in-flight counter, taken when a request attempt starts using the engine
 * and given back exactly once, however the attempt ends. {@link #release()} is idempotent, so the
 * one {@code eventually}/{@code andThen} path that releases it may also be reached from a
 * cancellation without double counting (MLC leaks here: reference §6 item 1).
 */
public final class InFlightLease {

  private final int engineId;
  private final AtomicInteger counter;
  private final AtomicBoolean released = new AtomicBoolean();

  InFlightLease(int engineId, AtomicInteger counter) {
    this.engineId = engineId;
    this.counter = counter;
    counter.incrementAndGet();
  }

  public int engineId() {
    return engineId;
  }

  /**
   * Runs {@code work} holding this lease and releases it when the work's future completes, or at
   * once if {@code work} throws instead of returning a future: the single release path.
   */
  public <T> Future<T> during(Supplier<Future<T>> work) {
    Future<T> f;
    try {
      f = work.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> release());
  }

  /** Gives the unit back; later calls do nothing. */
  public void release() {
    if (released.compareAndSet(false, true)) {
      counter.decrementAndGet();
    }
  }

  public boolean released() {
    return released.get();
  }
}
