package dev.tandem.engine.sched;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Token choice and log-probabilities from one logits row. Pure functions of their inputs (the
 * random stream included), so a choice samples the same tokens however it was batched.
 */
public final class Sampler {
  private Sampler() {}

  /** Greedy at temperature 0 (lowest id wins ties), else temperature + top-p sampling. */
  public static int sample(float[] logits, double temperature, double topP, SplittableRandom rng) {
    if (temperature == 0) {
      return argmax(logits);
    }
    double[] probs = softmax(logits, temperature);
    double u = rng.nextDouble();
    if (topP >= 1.0) {
      double target = u;
      double cumulative = 0;
      for (int i = 0; i < probs.length; i++) {
        cumulative += probs[i];
        if (cumulative > target) {
          return i;
        }
      }
      return lastNonZero(probs);
    }
    int[] order = byProbabilityDescending(probs);
    double mass = 0;
    int keep = 0;
    while (keep < order.length) {
      mass += probs[order[keep++]];
      if (mass >= topP) {
        break;
      }
    }
    double target = u * mass;
    double cumulative = 0;
    for (int i = 0; i < keep; i++) {
      cumulative += probs[order[i]];
      if (cumulative > target) {
        return order[i];
      }
    }
    return order[keep - 1];
  }

  public static int argmax(float[] logits) {
    int best = 0;
    for (int i = 1; i < logits.length; i++) {
      if (logits[i] > logits[best]) {
        best = i;
      }
    }
    return best;
  }

  static double[] softmax(float[] logits, double temperature) {
    double max = Double.NEGATIVE_INFINITY;
    for (float l : logits) {
      max = Math.max(max, l);
    }
    double[] p = new double[logits.length];
    double sum = 0;
    for (int i = 0; i < logits.length; i++) {
      p[i] = Math.exp((logits[i] - max) / temperature);
      sum += p[i];
    }
    for (int i = 0; i < p.length; i++) {
      p[i] /= sum;
    }
    return p;
  }

  /** Log-softmax of the raw logits for {@code token}, with the {@code k} most likely tokens. */
  public static Logprobs logprobs(float[] logits, int token, int k) {
    double max = Double.NEGATIVE_INFINITY;
    for (float l : logits) {
      max = Math.max(max, l);
    }
    double sum = 0;
    for (float l : logits) {
      sum += Math.exp(l - max);
    }
    double logZ = max + Math.log(sum);
    int[] top = topK(logits, k);
    double[] topLogprobs = new double[top.length];
    for (int i = 0; i < top.length; i++) {
      topLogprobs[i] = logits[top[i]] - logZ;
    }
    return new Logprobs(logits[token] - logZ, top, topLogprobs);
  }

  /** The {@code k} largest logits' ids, largest first, lower id first among equals. */
  static int[] topK(float[] logits, int k) {
    int[] best = new int[Math.min(k, logits.length)];
    int size = 0;
    for (int i = 0; i < logits.length; i++) {
      if (size < best.length) {
        best[size++] = i;
      } else if (size > 0 && logits[i] > logits[best[size - 1]]) {
        best[size - 1] = i;
      } else {
        continue;
      }
      // insertion step: bubble the new entry up while it beats its predecessor
      for (int j = size - 1; j > 0 && logits[best[j]] > logits[best[j - 1]]; j--) {
        int t = best[j];
        best[j] = best[j - 1];
        best[j - 1] = t;
      }
    }
    return best;
  }

  /** Token ids by descending probability, ascending id among equal probabilities. */
  private static int[] byProbabilityDescending(double[] probs) {
    long[] keys = new long[probs.length];
    for (int i = 0; i < probs.length; i++) {
      // positive floats order like their bit patterns; invert so an ascending sort gives descending p
      int bits = Float.floatToIntBits((float) probs[i]);
      keys[i] = ((long) (Integer.MAX_VALUE - bits) << 32) | i;
    }
    Arrays.sort(keys);
    int[] order = new int[probs.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = (int) keys[i];
    }
    return order;
  }

  private static int lastNonZero(double[] probs) {
    for (int i = probs.length - 1; i >= 0; i--) {
      if (probs[i] > 0) {
        return i;
      }
    }
    return 0;
  }

  /** Log-probability of a token and of the top alternatives (ids with their log-probabilities). */
  public record Logprobs(double logprob, int[] topIds, double[] topLogprobs) {}
}
