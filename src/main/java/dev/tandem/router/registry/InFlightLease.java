package dev.tandem.router.registry;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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
