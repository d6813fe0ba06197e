package dev.tandem.router.dispatch;

import io.vertx.core.json.JsonObject;

/**
 * What one engine chunk adds to one client choice, after index mapping and replay skipping.
 *
 * @param text new text, may be empty
 * @param logprobs the chunk's logprobs object for this text, or null
 * @param finishReason null until the choice ends ({@code stop}, {@code length})
 */
public record ChoiceDelta(String text, JsonObject logprobs, String finishReason) {

  public boolean isEmpty() {
    return text.isEmpty() && finishReason == null;
  }

  /** Number of logprob entries (one per token) in this delta. */
  public int logprobCount() {
    return logprobs == null || logprobs.getJsonArray("tokens") == null ? 0
        : logprobs.getJsonArray("tokens").size();
  }
}
