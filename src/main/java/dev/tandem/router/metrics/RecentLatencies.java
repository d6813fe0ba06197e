package dev.tandem.router.metrics;

import java.util.Arrays;

/**
 * The last {@value #SIZE} finished requests' TTFT and time per output token, with the time they
 * ended, for the dashboard's percentiles over a sliding window (Prometheus histograms are
 * cumulative; a chart wants "p90 over the last 30 s"). Thread-safe; one short lock per request,
 * and a reader holds it only to copy.
 */
public final class RecentLatencies {

  static final int SIZE = 4096;

  /** Percentiles of one window; NaN where the window had no sample. */
  public record Window(int count, double ttftP50, double ttftP90, double ttftP99, double tpotP50,
      double tpotP90, double tpotP99) {}

  private final long[] at = new long[SIZE];
  private final double[] ttft = new double[SIZE];
  private final double[] tpot = new double[SIZE];
  private int next;
  private int size;

  /** @param tpotS NaN when the answer had fewer than two tokens per choice */
  public synchronized void add(long endNanos, double ttftS, double tpotS) {
    at[next] = endNanos;
    ttft[next] = ttftS;
    tpot[next] = tpotS;
    next = (next + 1) % SIZE;
    size = Math.min(SIZE, size + 1);
  }

  /**
   * Percentiles (seconds) of the requests that ended after {@code sinceNanos}. Only the copy is
   * made under the lock; the sorts run outside it, so an event loop ending a request ({@link
   * #add}) never waits for them.
   */
  public Window since(long sinceNanos) {
    double[] a;
    double[] b;
    int na = 0;
    int nb = 0;
    synchronized (this) {
      a = new double[size];
      b = new double[size];
      for (int i = 0; i < size; i++) {
        if (at[i] - sinceNanos > 0) {
          a[na++] = ttft[i];
          if (!Double.isNaN(tpot[i])) {
            b[nb++] = tpot[i];
          }
        }
      }
    }
    Arrays.sort(a, 0, na);
    Arrays.sort(b, 0, nb);
    return new Window(na, pct(a, na, 0.5), pct(a, na, 0.9), pct(a, na, 0.99), pct(b, nb, 0.5),
        pct(b, nb, 0.9), pct(b, nb, 0.99));
  }

  /** Nearest-rank percentile of the first {@code n} sorted values. */
  static double pct(double[] sorted, int n, double p) {
    if (n == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * n);
    return sorted[Math.max(0, Math.min(n - 1, rank - 1))];
  }
}
