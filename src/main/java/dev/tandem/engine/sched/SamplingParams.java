package dev.tandem.engine.sched;

import java.util.List;

/**
 * How one request samples and when it stops.
 *
 * @param temperature 0 = greedy
 * @param seed choice {@code i} samples from {@code SplittableRandom(seed + i)}
 * @param maxTokens null = until a stop or the context limit
 * @param logprobs null = off, else number of alternatives (0..5)
 * @param controls penalties, logit bias and top-k, applied to the logits before the choice
 */
public record SamplingParams(double temperature, double topP, long seed, Integer maxTokens,
    Integer logprobs, List<String> stop, boolean ignoreEos, LogitControls controls) {

  public SamplingParams {
    stop = stop == null ? List.of() : List.copyOf(stop);
    controls = controls == null ? LogitControls.NONE : controls;
  }

  /** Plain temperature + top-p sampling, no penalties, bias or top-k. */
  public SamplingParams(double temperature, double topP, long seed, Integer maxTokens,
      Integer logprobs, List<String> stop, boolean ignoreEos) {
    this(temperature, topP, seed, maxTokens, logprobs, stop, ignoreEos, LogitControls.NONE);
  }

  public static SamplingParams greedy(Integer maxTokens) {
    return new SamplingParams(0, 1, 0, maxTokens, null, List.of(), false);
  }
}
