package dev.tandem.router.dispatch;

import io.vertx.core.json.JsonObject;

/**
 * What one engine chunk adds to one choice, after index mapping and replay skipping.
 *
 * @param text new text, may be empty
 * @param logprobs the chunk's logprobs object for this text, or null
 * @param tokenIds ids of the tokens behind {@code text}, or null when the engine did not say
 * @param finishReason null until the choice ends ({@code stop}, {@code length}, ...)
 */
public record ChoiceDelta(String text, JsonObject logprobs, int[] tokenIds, String finishReason) {

  /** Number of tokens in this delta if known (from ids or logprobs), else -1. */
  public int tokenCount() {
    if (tokenIds != null) {
      return tokenIds.length;
    }
    if (logprobs != null && logprobs.getJsonArray("tokens") != null) {
      return logprobs.getJsonArray("tokens").size();
    }
    return text.isEmpty() ? 0 : -1;
  }

  public boolean isEmpty() {
    return text.isEmpty() && finishReason == null && (tokenIds == null || tokenIds.length == 0);
  }
}
