package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PoissonArrivalsTest {

  private static long[] times(double rate, long seed, int n) {
    PoissonArrivals a = new PoissonArrivals(rate, seed);
    long[] t = new long[n];
    for (int i = 0; i < n; i++) {
      t[i] = a.next();
    }
    return t;
  }

  @Test
  void sameSeedSameArrivalsDifferentSeedDifferent() {
    assertArrayEquals(times(20, 7, 500), times(20, 7, 500));
    assertFalse(Arrays.equals(times(20, 7, 500), times(20, 8, 500)));
  }

  @Test
  void gapsAreExponentialWithTheRequestedRate() {
    int n = 200_000;
    long[] t = times(50, 3, n);
    double[] gaps = new double[n];
    long prev = 0;
    for (int i = 0; i < n; i++) {
      assertTrue(t[i] >= prev, "arrival times never go back");
      gaps[i] = (t[i] - prev) / 1e9;
      prev = t[i];
    }
    double mean = Arrays.stream(gaps).average().orElseThrow();
    double var = Arrays.stream(gaps).map(g -> (g - mean) * (g - mean)).sum() / n;
    assertEquals(1 / 50.0, mean, 0.02 / 50); // within 2 %
    // Exponential: standard deviation equals the mean (a fixed-interval schedule would give 0).
    assertEquals(1.0, Math.sqrt(var) / mean, 0.03);
    // P(gap > mean) = e^-1 for an exponential distribution.
    double above = Arrays.stream(gaps).filter(g -> g > mean).count() / (double) n;
    assertEquals(Math.exp(-1), above, 0.01);
    // Counts per second behave as Poisson(50): the last arrival sits near n / rate seconds.
    assertEquals(n / 50.0, t[n - 1] / 1e9, n / 50.0 * 0.02);
  }

  @Test
  void rejectsNonPositiveRate() {
    assertThrows(IllegalArgumentException.class, () -> new PoissonArrivals(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new PoissonArrivals(Double.NaN, 1));
  }
}
