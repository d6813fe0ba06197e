package dev.tandem.router.api;

import dev.tandem.api.SseWriter;
import dev.tandem.router.dispatch.ClientChunk;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/** A chunk that is a JSON object already (a chat chunk), framed as one SSE event when sent over HTTP. */
record JsonChunk(JsonObject json) implements ClientChunk {

  @Override
  public JsonObject toJson() {
    return json;
  }

  @Override
  public Buffer toSse() {
    return SseWriter.frame(json);
  }
}
