package dev.tandem.bench;

import io.vertx.core.json.JsonObject;
import java.util.Arrays;

/**
 * Count, mean and percentiles of a set of samples (milliseconds in reports). Percentiles are
 * linear interpolations between closest ranks (numpy's default), so p50 of {1, 2} is 1.5 and
 * p100 is the maximum.
 */
public record LatencySummary(int count, double mean, double p50, double p90, double p99, double max) {

  public static final LatencySummary EMPTY = new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN,
      Double.NaN, Double.NaN);

  public static LatencySummary of(double[] samples) {
    if (samples.length == 0) {
      return EMPTY;
    }
    double[] sorted = samples.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (double v : sorted) {
      sum += v;
    }
    return new LatencySummary(sorted.length, sum / sorted.length, percentile(sorted, 50),
        percentile(sorted, 90), percentile(sorted, 99), sorted[sorted.length - 1]);
  }

  /** Percentile {@code q} in [0, 100] of already sorted samples, linear interpolation. */
  public static double percentile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    if (q < 0 || q > 100) {
      throw new IllegalArgumentException("percentile must be in [0, 100], got " + q);
    }
    double rank = q / 100.0 * (sorted.length - 1);
    int lo = (int) Math.floor(rank);
    int hi = Math.min(lo + 1, sorted.length - 1);
    double frac = rank - lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("count", count);
    put(o, "mean", mean);
    put(o, "p50", p50);
    put(o, "p90", p90);
    put(o, "p99", p99);
    put(o, "max", max);
    return o;
  }

  private static void put(JsonObject o, String key, double v) {
    // JSON has no NaN: absent data is null. Microsecond resolution is plenty for milliseconds.
    o.put(key, Double.isNaN(v) ? null : Math.round(v * 1000) / 1000.0);
  }
}
