package dev.tandem.bench;

import java.util.SplittableRandom;

/**
 * Open-loop arrival times of a Poisson process: exponential gaps with mean {@code 1/rate},
 * seeded. Times are offsets in nanoseconds from the start of the run, so a scheduler can aim at
 * absolute times and never drift.
 */
public final class PoissonArrivals {

  private final double meanGapNanos;
  private final SplittableRandom random;
  private double nextNanos;

  /** @param ratePerSecond mean arrivals per second, > 0 */
  public PoissonArrivals(double ratePerSecond, long seed) {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate must be > 0 requests/s, got " + ratePerSecond);
    }
    this.meanGapNanos = 1e9 / ratePerSecond;
    // A different stream from the workload's, so changing the rate never changes the requests.
    this.random = new SplittableRandom(WorkloadGenerator.mix(seed, -42));
  }

  /** Offset of the next arrival from the start, in nanoseconds; non-decreasing. */
  public long next() {
    double u = 1.0 - random.nextDouble(); // (0, 1]
    nextNanos += -Math.log(u) * meanGapNanos;
    return (long) nextNanos;
  }
}
