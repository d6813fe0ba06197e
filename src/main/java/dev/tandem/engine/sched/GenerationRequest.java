package dev.tandem.engine.sched;

/**
 * A tokenized request for the engine.
 *
 * @param id the request id (MLC: the {@code user} field, else {@code cmpl-<hex>})
 * @param n number of choices
 */
public record GenerationRequest(String id, int[] promptTokens, int n, SamplingParams sampling) {
  public GenerationRequest {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1");
    }
    if (promptTokens.length == 0) {
      throw new IllegalArgumentException("empty prompt");
    }
  }
}
