package dev.tandem.bench.micro;

import java.util.Arrays;

/** Times a loop: warm-up rounds, then the median of measured rounds, in ns per operation. */
public final class Timing {

  /** One round: runs the operation {@code count} times, returns something the JIT must keep. */
  @FunctionalInterface
  public interface Round {
    long run(int count);
  }

  private static long sink;

  private Timing() {}

  /** ns per operation: median of {@code rounds} rounds of {@code count} after as many warm-ups. */
  public static double nsPerOp(Round round, int count, int rounds) {
    for (int i = 0; i < rounds; i++) {
      sink += round.run(count);
    }
    double[] ns = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      long t0 = System.nanoTime();
      sink += round.run(count);
      ns[i] = (System.nanoTime() - t0) / (double) count;
    }
    Arrays.sort(ns);
    return ns[rounds / 2];
  }

  /** Keeps every round's result observable. */
  public static long sink() {
    return sink;
  }
}
