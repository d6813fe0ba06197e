package dev.tandem.engine.sched;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What a request changes in a logits row before a token is chosen, in OpenAI's order: the
 * {@code logit_bias} values are added, then {@code frequency_penalty} times a token's count in
 * the output so far and {@code presence_penalty} once for every token already in the output are
 * subtracted, then {@code top_k} keeps only the k largest (the others can no longer be sampled).
 * A pure function of the row and the choice's own output, so batch invariance and seeded
 * determinism hold as for plain sampling.
 *
 * @param biasIds token ids with a bias, ascending; {@code biasValues} the value for each
 * @param topK 0 = every token
 */
public record LogitControls(float frequencyPenalty, float presencePenalty, int[] biasIds,
    float[] biasValues, int topK) {

  public static final LogitControls NONE = new LogitControls(0, 0, new int[0], new float[0], 0);

  public LogitControls {
    if (biasIds.length != biasValues.length) {
      throw new IllegalArgumentException("one bias value per biased token id");
    }
    biasIds = biasIds.clone();
    biasValues = biasValues.clone();
  }

  /** Whether the row is changed at all (else {@link #apply} returns it as it is). */
  public boolean active() {
    return frequencyPenalty != 0 || presencePenalty != 0 || biasIds.length > 0 || topK > 0;
  }

  boolean penalized() {
    return frequencyPenalty != 0 || presencePenalty != 0;
  }

  /**
   * The row to sample from: {@code logits} itself when nothing applies, else a changed copy (the
   * raw row stays for logprobs).
   *
   * @param output the choice's generated tokens so far ({@code tokens[from, to)})
   * @param greedy top-k cannot change an argmax, so it is skipped
   */
  float[] apply(float[] logits, int[] output, int from, int to, boolean greedy) {
    boolean topKApplies = topK > 0 && topK < logits.length && !greedy;
    if (biasIds.length == 0 && !penalized() && !topKApplies) {
      return logits;
    }
    float[] row = logits.clone();
    for (int i = 0; i < biasIds.length; i++) {
      row[biasIds[i]] += biasValues[i];
    }
    if (penalized()) {
      Map<Integer, Integer> counts = new HashMap<>();
      for (int p = from; p < to; p++) {
        counts.merge(output[p], 1, Integer::sum);
      }
      for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
        row[e.getKey()] -= e.getValue() * frequencyPenalty + presencePenalty;
      }
    }
    if (topKApplies) {
      int[] keep = Sampler.topK(row, topK);
      float[] kept = new float[keep.length];
      for (int i = 0; i < keep.length; i++) {
        kept[i] = row[keep[i]];
      }
      Arrays.fill(row, Float.NEGATIVE_INFINITY);
      for (int i = 0; i < keep.length; i++) {
        row[keep[i]] = kept[i];
      }
    }
    return row;
  }
}
