package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencySummaryTest {

  @Test
  void percentilesInterpolateLinearlyLikeNumpy() {
    double[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assertEquals(5.5, LatencySummary.percentile(sorted, 50), 1e-12);
    assertEquals(9.1, LatencySummary.percentile(sorted, 90), 1e-12);
    assertEquals(9.91, LatencySummary.percentile(sorted, 99), 1e-12);
    assertEquals(1, LatencySummary.percentile(sorted, 0), 1e-12);
    assertEquals(10, LatencySummary.percentile(sorted, 100), 1e-12);
  }

  @Test
  void summaryOfUnsortedSamples() {
    double[] samples = new double[1000];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = (i * 7919) % 1000; // a permutation of 0..999
    }
    LatencySummary s = LatencySummary.of(samples);
    assertEquals(1000, s.count());
    assertEquals(499.5, s.mean(), 1e-9);
    assertEquals(499.5, s.p50(), 1e-9);
    assertEquals(899.1, s.p90(), 1e-9);
    assertEquals(989.01, s.p99(), 1e-9);
    assertEquals(999, s.max(), 1e-9);
    assertEquals(0, samples[0]); // input left unsorted
    assertEquals(919, samples[1]);
  }

  @Test
  void singleSampleAndEmpty() {
    LatencySummary one = LatencySummary.of(new double[] {42});
    assertEquals(42, one.p50());
    assertEquals(42, one.p99());
    assertEquals(0, LatencySummary.of(new double[0]).count());
    assertTrue(Double.isNaN(LatencySummary.of(new double[0]).p50()));
    assertEquals(null, LatencySummary.EMPTY.toJson().getValue("p50"));
    assertThrows(IllegalArgumentException.class, () -> LatencySummary.percentile(new double[] {1}, 101));
  }
}
