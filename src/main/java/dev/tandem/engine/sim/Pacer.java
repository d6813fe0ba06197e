package dev.tandem.engine.sim;

import java.util.concurrent.locks.LockSupport;

/**
 * Lets simulated time pass. {@link #REAL} parks the calling thread (the engine's own step thread,
 * never an event loop) for the step's duration without using the CPU; a {@link Virtual} pacer
 * only adds the time up, for calibration runs that must not depend on this machine's clock.
 */
public interface Pacer {

  void pass(long nanos);

  Pacer REAL = nanos -> {
    long deadline = System.nanoTime() + nanos;
    for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
      LockSupport.parkNanos(left);
      if (Thread.currentThread().isInterrupted()) {
        return; // the engine is closing
      }
    }
  };

  /** Simulated time only: a clock that advances by the steps' durations. */
  final class Virtual implements Pacer {
    private volatile long elapsed;

    @Override
    public void pass(long nanos) {
      elapsed += nanos;
    }

    public long elapsedNanos() {
      return elapsed;
    }
  }
}
