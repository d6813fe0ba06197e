package dev.tandem.api;

/**
 * What a tokenized prompt must satisfy on one model, checked with the same rules and wording by
 * the router (before any engine sees the request) and by the builtin engine: at least one token,
 * every id in the vocabulary, the prompt shorter than the context window and prompt + max_tokens
 * within it. A limit of 0 means unknown and skips that check (a router that could not read the
 * model's {@code config.json} leaves those checks to the engine).
 *
 * @param vocabSize ids must lie in {@code [0, vocabSize)}; 0 = unknown
 * @param contextLength tokens of prompt plus completion; 0 = unknown
 */
public record PromptLimits(int vocabSize, int contextLength) {

  /** Throws a 400 {@link ApiError} naming the problem; {@code maxTokens} null = no bound asked for. */
  public void check(int[] ids, Integer maxTokens) {
    if (ids.length == 0) {
      throw ApiError.invalid("prompt", "Invalid request prompt: it has no tokens");
    }
    checkVocabulary(ids, "prompt");
    if (contextLength <= 0) {
      return;
    }
    if (ids.length >= contextLength) {
      throw ApiError.invalid("prompt", "context_length_exceeded", "Request prompt has " + ids.length
          + " tokens in total, larger than the model input length limit " + (contextLength - 1)
          + ".");
    }
    if (maxTokens != null && ids.length + (long) maxTokens > contextLength) {
      throw ApiError.invalid("max_tokens", "context_length_exceeded", "max_tokens " + maxTokens
          + " plus the prompt's " + ids.length + " tokens exceeds the context window of "
          + contextLength + " tokens");
    }
  }

  /** Throws a 400 naming {@code param} unless every id lies in the vocabulary (when known). */
  public void checkVocabulary(int[] ids, String param) {
    if (vocabSize <= 0) {
      return;
    }
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] < 0 || ids[i] >= vocabSize) {
        throw ApiError.invalid(param, "invalid_token", "Token id " + ids[i] + " at index " + i
            + " is outside the vocabulary (0.." + (vocabSize - 1) + ")");
      }
    }
  }
}
