package dev.tandem.bench.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The compute bound: peak fused multiply-add throughput of this machine's cores, as a loop of
 * independent vector FMAs on registers (no memory traffic) on 1 and on several threads, in
 * GFLOP/s (one FMA = 2 floating-point operations). Uses the Vector API at the JVM's preferred
 * width when {@code jdk.incubator.vector} is present ({@link VectorFmaLoop}); without it, a scalar
 * loop, which says what the scalar kernels could reach.
 */
final class FmaPeakBench {
  private static final boolean VECTOR = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
  private static final long ITERATIONS = 20_000_000;
  /** Independent accumulator chains per loop (see {@link VectorFmaLoop}). */
  static final int CHAINS = 10;

  private FmaPeakBench() {}

  /** Floats per vector register in the loop (1 for the scalar loop). */
  static int lanes() {
    return VECTOR ? VectorFmaLoop.lanes() : 1;
  }

  /** Best GFLOP/s over {@code reps} runs of the loop on {@code threads} threads at once. */
  static double measure(int threads, int reps) throws InterruptedException {
    double best = 0;
    for (int r = 0; r < reps; r++) {
      double[] sink = new double[threads];
      List<Thread> ts = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread th = new Thread(() -> sink[id] = VECTOR ? VectorFmaLoop.run(ITERATIONS) : scalarLoop(ITERATIONS));
        ts.add(th);
        th.start();
      }
      for (Thread th : ts) {
        th.join();
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      if (sink[0] == 42) {
        System.out.print(""); // keeps the results alive
      }
      double flops = 2.0 * threads * ITERATIONS * CHAINS * lanes();
      best = Math.max(best, flops / secs / 1e9);
    }
    return best;
  }

  private static double scalarLoop(long iterations) {
    float a0 = 1f;
    float a1 = 1f;
    float a2 = 1f;
    float a3 = 1f;
    float a4 = 1f;
    float a5 = 1f;
    float a6 = 1f;
    float a7 = 1f;
    float a8 = 1f;
    float a9 = 1f;
    float m = 0.999999f;
    float c = 1e-7f;
    for (long i = 0; i < iterations; i++) {
      a0 = Math.fma(a0, m, c);
      a1 = Math.fma(a1, m, c);
      a2 = Math.fma(a2, m, c);
      a3 = Math.fma(a3, m, c);
      a4 = Math.fma(a4, m, c);
      a5 = Math.fma(a5, m, c);
      a6 = Math.fma(a6, m, c);
      a7 = Math.fma(a7, m, c);
      a8 = Math.fma(a8, m, c);
      a9 = Math.fma(a9, m, c);
    }
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
  }
}
