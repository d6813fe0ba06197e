package dev.tandem.engine.sched;

import java.util.List;

/**
 * How one request samples and when it stops.
 *
 * @param temperature 0 = greedy
 * @param seed choice {@code i} samples from {@code SplittableRandom(seed + i)}
 * @param maxTokens null = until a stop or the context limit
 * @param logprobs null = off, else number of alternatives (0..5)
 */
public record SamplingParams(double temperature, double topP, long seed, Integer maxTokens,
    Integer logprobs, List<String> stop, boolean ignoreEos) {

  public SamplingParams {
    stop = stop == null ? List.of() : List.copyOf(stop);
  }

  public static SamplingParams greedy(Integer maxTokens) {
    return new SamplingParams(0, 1, 0, maxTokens, null, List.of(), false);
  }
}
