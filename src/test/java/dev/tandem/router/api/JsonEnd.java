package dev.tandem.router.api;

import dev.tandem.api.SseWriter;
import dev.tandem.router.dispatch.AnswerEnd;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * For tests: a completion's end known only by its JSON (an envelope with {@code choices} and
 * {@code usage}), read as {@link AnswerEnd}'s defaults read it.
 */
record JsonEnd(JsonObject json) implements AnswerEnd {

  @Override
  public int completionTokens() {
    return usage().getInteger("completion_tokens");
  }

  @Override
  public int totalTokens() {
    return usage().getInteger("total_tokens");
  }

  @Override
  public JsonObject usage() {
    return json.getJsonObject("usage");
  }

  @Override
  public JsonObject toJson() {
    return json;
  }

  @Override
  public Buffer toSse() {
    return SseWriter.frame(json);
  }
}
