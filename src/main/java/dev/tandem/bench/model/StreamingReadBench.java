package dev.tandem.bench.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The memory-bandwidth bound of a decode step: how fast this machine streams a given number of
 * bytes (as many as the model's weights, in 16 MB arrays like its matrices) through a summing
 * loop, on 1 and on several threads. The loop is a vector sum ({@link VectorReadLoop}) when the
 * Vector API is present, so the loop itself is not the bottleneck and the best rate is the
 * memory's (or, where the weights fit in a large last-level cache, that cache's). The best rate is the bound.
 */
final class StreamingReadBench {
  private static final int CHUNK_FLOATS = 4 << 20; // 16 MB arrays, like a model's weight matrices

  private final int[][] chunks;
  private final long bytes;

  StreamingReadBench(long bytes) {
    int n = (int) Math.max(1, (bytes / Float.BYTES + CHUNK_FLOATS - 1) / CHUNK_FLOATS);
    chunks = new int[n][CHUNK_FLOATS];
    for (int[] c : chunks) {
      java.util.Arrays.fill(c, 3);
    }
    this.bytes = (long) n * CHUNK_FLOATS * Float.BYTES;
  }

  long bytes() {
    return bytes;
  }

  /** Best bytes/second over {@code reps} full passes with {@code threads} threads. */
  double measure(int threads, int reps) throws InterruptedException {
    double best = 0;
    for (int r = 0; r < reps; r++) {
      long[] sums = new long[threads];
      List<Thread> ts = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread th = new Thread(() -> {
          long s = 0;
          for (int c = id; c < chunks.length; c += threads) {
            s += sum(chunks[c]);
          }
          sums[id] = s;
        });
        ts.add(th);
        th.start();
      }
      for (Thread th : ts) {
        th.join();
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      if (sums[0] == 42) {
        System.out.print(""); // keeps the sums alive
      }
      best = Math.max(best, bytes / secs);
    }
    return best;
  }

  private static final boolean VECTOR = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

  private static int sum(int[] a) {
    return VECTOR ? VectorReadLoop.sum(a) : scalarSum(a);
  }

  private static int scalarSum(int[] a) {
    int s = 0;
    for (int v : a) {
      s += v;
    }
    return s;
  }
}
