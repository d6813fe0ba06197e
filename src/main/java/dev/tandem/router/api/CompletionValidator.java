package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import io.vertx.core.json.JsonObject;

/**
 * Validates a completion request before any engine sees it, with exactly the engine's rules: the
 * fields by the engine's own {@link CompletionRequest#parse} (shared code, not a copy), and the
 * checks that need the model (vocabulary, context) here with the engine's limits and wording
 * ({@code Engine.checkPrompt}), since the router knows the model from its {@code config.json}.
 */
public final class CompletionValidator {

  private CompletionValidator() {}

  /** Field checks; throws {@link ApiError} (400) naming the field. */
  public static CompletionRequest parse(JsonObject body) {
    return CompletionRequest.parse(body);
  }

  /**
   * Token checks: at least one token, every id in the vocabulary, the prompt shorter than the
   * context and prompt + max_tokens within it. A limit of 0 in {@code model} skips that check.
   */
  public static void checkTokens(int[] ids, Integer maxTokens, ModelInfo model) {
    if (ids.length == 0) {
      throw ApiError.invalid("prompt", "Invalid request prompt: it has no tokens");
    }
    if (model.vocabSize() > 0) {
      for (int i = 0; i < ids.length; i++) {
        if (ids[i] < 0 || ids[i] >= model.vocabSize()) {
          throw ApiError.invalid("prompt", "invalid_token", "Token id " + ids[i] + " at index " + i
              + " is outside the vocabulary (0.." + (model.vocabSize() - 1) + ")");
        }
      }
    }
    int limit = model.contextLength();
    if (limit <= 0) {
      return;
    }
    if (ids.length >= limit) {
      throw ApiError.invalid("prompt", "context_length_exceeded", "Request prompt has " + ids.length
          + " tokens in total, larger than the model input length limit " + (limit - 1) + ".");
    }
    if (maxTokens != null && ids.length + (long) maxTokens > limit) {
      throw ApiError.invalid("max_tokens", "context_length_exceeded", "max_tokens " + maxTokens
          + " plus the prompt's " + ids.length + " tokens exceeds the context window of " + limit
          + " tokens");
    }
  }
}
