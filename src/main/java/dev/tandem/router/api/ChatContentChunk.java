package dev.tandem.router.api;

import dev.tandem.api.JsonBytes;
import dev.tandem.chat.ChatAnswer;
import dev.tandem.router.dispatch.ClientChunk;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * A chat answer's plain content delta (its choice already started, no tool parser, no logprobs):
 * its SSE event written straight as bytes by {@link ChatAnswer#appendContentSse}, its JSON (for
 * the bus) built only when asked. Both are what the general path ({@link JsonChunk} of
 * {@link ChatAnswer#chunks}) writes for the same delta.
 */
record ChatContentChunk(ChatAnswer answer, int index, String text) implements ClientChunk {

  @Override
  public JsonObject toJson() {
    return answer.contentChunk(index, text);
  }

  @Override
  public Buffer toSse() {
    return ClientChunk.rendered(this);
  }

  @Override
  public void appendSse(JsonBytes out) {
    if (!answer.appendContentSse(index, text, out)) {
      out.raw(new JsonChunk(toJson()).toSse()); // a lone surrogate: as the general path
    }
  }
}
