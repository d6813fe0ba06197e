package dev.tandem.router.metrics;

import io.netty.util.concurrent.FastThreadLocal;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One latency histogram family ({@code NAME_seconds} with fixed buckets, {@code _count} and
 * {@code _sum}, and the recent maximum as the gauge {@code NAME_seconds_max}), as Micrometer's
 * Prometheus timer exposes it, recorded without a shared write. A Micrometer timer takes two
 * adders, a compare-and-set loop for its maximum and an atomic bucket increment, and reads the
 * clock twice to rotate its windows, for every value: five timers at the end of every request
 * were ~2.5% of the router's event loop. Here each recording thread (an event loop) writes cells
 * of its own with plain stores, and a scrape sums the threads' cells. The counts a scrape reads
 * may miss the values being recorded at that moment, as any scrape may.
 *
 * <p>The maximum is the largest value recorded in the current or the previous minute, or since the
 * previous scrape when that was longer ago (Micrometer's is over the last two minutes). The minute
 * moves on when the page is read, so a recorder never reads a clock for it.
 */
final class LoopHistograms implements MultiCollector {

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  /** Cells per series, indexed by the recording thread's number; threads beyond share a cell. */
  private static final int THREADS = 64;
  private static final AtomicInteger NEXT_THREAD = new AtomicInteger();
  private static final FastThreadLocal<Integer> THREAD = new FastThreadLocal<>() {
    @Override
    protected Integer initialValue() {
      int n = NEXT_THREAD.getAndIncrement();
      return n < THREADS ? n : THREADS;
    }
  };

  private final String name;
  private final String help;
  private final String[] labelNames;
  private final long[] boundsNanos;
  private final double[] boundsSeconds;
  private final List<Series> series = new CopyOnWriteArrayList<>();
  /** The minute of the maxima, as this family's last scrape set it (moved on by its scrapes). */
  private volatile long minute = System.currentTimeMillis() / 60_000;

  /** @param name without its unit: {@code tandem_router_e2e} gives {@code tandem_router_e2e_seconds} */
  LoopHistograms(String name, String help, Duration[] buckets, String... labelNames) {
    this.name = name + "_seconds";
    this.help = help;
    this.labelNames = labelNames.clone();
    this.boundsNanos = new long[buckets.length];
    this.boundsSeconds = new double[buckets.length + 1];
    for (int i = 0; i < buckets.length; i++) {
      boundsNanos[i] = buckets[i].toNanos();
      boundsSeconds[i] = buckets[i].toNanos() / 1e9;
      if (i > 0 && boundsNanos[i] <= boundsNanos[i - 1]) {
        throw new IllegalArgumentException("buckets must grow: " + List.of(buckets));
      }
    }
    boundsSeconds[buckets.length] = Double.POSITIVE_INFINITY;
  }

  /** Sets the minute this family's last scrape saw (tests: a scrape long ago). */
  void lastScrapedMinute(long m) {
    minute = m;
  }

  /** The series of these label values (one per label name), made here; keep it and record into it. */
  Series series(String... labelValues) {
    if (labelValues.length != labelNames.length) {
      throw new IllegalArgumentException("labels " + List.of(labelNames) + ", values "
          + List.of(labelValues));
    }
    Series s = new Series(Labels.of(labelNames, labelValues));
    series.add(s);
    return s;
  }

  /** One label set's histogram: a cell per recording thread. */
  final class Series {
    private final Labels labels;
    private final Cell[] cells = new Cell[THREADS];
    /** Threads beyond {@link #THREADS}: a cell written under its lock. */
    private final Cell shared = new Cell(boundsNanos.length + 1);

    private Series(Labels labels) {
      this.labels = labels;
    }

    /** One value in nanoseconds (negative ones are not recorded). */
    void record(long nanos) {
      if (nanos < 0) {
        return;
      }
      int thread = THREAD.get();
      if (thread == THREADS) {
        synchronized (shared) {
          shared.add(bucket(nanos), nanos, minute);
        }
        return;
      }
      Cell c = cells[thread];
      if (c == null) {
        c = newCell(thread);
      }
      c.add(bucket(nanos), nanos, minute);
    }

    private synchronized Cell newCell(int thread) {
      Cell c = new Cell(boundsNanos.length + 1);
      VarHandle.releaseFence(); // the cell's fields before the reference, for the scrape
      cells[thread] = c;
      return c;
    }

    /** Its counts now; {@code totals} gets the sum and the maximum, in nanoseconds. */
    private HistogramSnapshot.HistogramDataPointSnapshot snapshot(long now, long lastScraped,
        long[] totals) {
      long[] counts = new long[boundsNanos.length + 1];
      totals[0] = 0;
      totals[1] = 0;
      Cell[] all;
      synchronized (this) {
        all = cells.clone();
      }
      for (Cell c : all) {
        if (c != null) {
          c.readInto(counts, totals, now, lastScraped);
        }
      }
      synchronized (shared) {
        shared.readInto(counts, totals, now, lastScraped);
      }
      return HistogramSnapshot.HistogramDataPointSnapshot.builder()
          .classicHistogramBuckets(ClassicHistogramBuckets.of(boundsSeconds, counts))
          .sum(totals[0] / 1e9).labels(labels).build();
    }
  }

  /** Bucket index of a value: the first bound it does not exceed, else the last (+Inf). */
  private int bucket(long nanos) {
    long[] bounds = boundsNanos;
    int i = 0;
    while (i < bounds.length && nanos > bounds[i]) {
      i++;
    }
    return i;
  }

  /**
   * One thread's counts of one series: written by that thread only (plain stores, read by
   * scrapes as opaque loads), so a count never goes back and nothing is shared between writers.
   */
  private static final class Cell {
    final long[] counts;
    /** [0] sum of nanoseconds, [1] maximum of {@code [3]}'s minute, [2] of the minute before, [3] that minute. */
    final long[] totals = new long[4];

    Cell(int buckets) {
      counts = new long[buckets];
    }

    void add(int bucket, long nanos, long now) {
      LONGS.setOpaque(counts, bucket, (long) LONGS.getOpaque(counts, bucket) + 1);
      LONGS.setOpaque(totals, 0, (long) LONGS.getOpaque(totals, 0) + nanos);
      long at = (long) LONGS.getOpaque(totals, 3);
      if (at != now) {
        LONGS.setOpaque(totals, 2, at == now - 1 ? (long) LONGS.getOpaque(totals, 1) : 0L);
        LONGS.setOpaque(totals, 1, 0L);
        LONGS.setOpaque(totals, 3, now);
      }
      if (nanos > (long) LONGS.getOpaque(totals, 1)) {
        LONGS.setOpaque(totals, 1, nanos);
      }
    }

    /**
     * Adds its counts into {@code into}, its sum into {@code totals[0]}, and raises
     * {@code totals[1]} to its largest value of minute {@code now} and the one before, or of the
     * minute the last scrape set ({@code lastScraped}: recorded since then).
     */
    void readInto(long[] into, long[] totals, long now, long lastScraped) {
      for (int i = 0; i < into.length; i++) {
        into[i] += (long) LONGS.getOpaque(counts, i);
      }
      totals[0] += (long) LONGS.getOpaque(this.totals, 0);
      long at = (long) LONGS.getOpaque(this.totals, 3);
      long thisMinute = (long) LONGS.getOpaque(this.totals, 1);
      long before = (long) LONGS.getOpaque(this.totals, 2);
      long max = at == now ? Math.max(thisMinute, before)
          : at == now - 1 || at == lastScraped ? thisMinute : 0;
      totals[1] = Math.max(totals[1], max);
    }
  }

  @Override
  public MetricSnapshots collect() {
    long now = System.currentTimeMillis() / 60_000;
    long lastScraped = minute;
    minute = now;
    HistogramSnapshot.Builder histogram = HistogramSnapshot.builder().name(name).help(help);
    GaugeSnapshot.Builder max = GaugeSnapshot.builder().name(name + "_max").help(help);
    long[] totals = new long[2];
    for (Series s : series) {
      histogram.dataPoint(s.snapshot(now, lastScraped, totals));
      max.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(totals[1] / 1e9)
          .labels(s.labels).build());
    }
    return MetricSnapshots.of(histogram.build(), max.build());
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(name, name + "_max");
  }
}
