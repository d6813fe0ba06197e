package dev.tandem.engine.sched;

import dev.tandem.api.ApiError;

/** What a tokenized prompt must satisfy on one model: ids in the vocabulary, room in the context. */
public record PromptLimits(int vocabSize, int maxSequenceLength) {

  /** Throws a 400 ApiError naming the problem; {@code maxTokens} null = no bound asked for. */
  public void check(int[] ids, Integer maxTokens) {
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] < 0 || ids[i] >= vocabSize) {
        throw ApiError.invalid("prompt", "invalid_token", "Token id " + ids[i] + " at index " + i
            + " is outside the vocabulary (0.." + (vocabSize - 1) + ")");
      }
    }
    if (ids.length >= maxSequenceLength) {
      throw ApiError.invalid("prompt", "context_length_exceeded", "Request prompt has " + ids.length
          + " tokens in total, larger than the model input length limit " + (maxSequenceLength - 1)
          + ".");
    }
    if (maxTokens != null && ids.length + (long) maxTokens > maxSequenceLength) {
      throw ApiError.invalid("max_tokens", "context_length_exceeded", "max_tokens " + maxTokens
          + " plus the prompt's " + ids.length + " tokens exceeds the context window of "
          + maxSequenceLength + " tokens");
    }
  }
}
