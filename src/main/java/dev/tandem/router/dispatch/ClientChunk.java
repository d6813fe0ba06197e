package dev.tandem.router.dispatch;

import dev.tandem.api.JsonBytes;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * One streamed chunk for the client, rendered by the transport: as a JSON object (event bus) or
 * as an SSE event {@code data: <json>\n\n} (HTTP), which deltas write straight as bytes.
 */
public interface ClientChunk {

  JsonObject toJson();

  /** The whole SSE event, {@code data: } to the blank line. */
  Buffer toSse();

  /** What a choice's delta chunk carries, for outputs that write deltas their own way. */
  record OfChoice(int index, String text, JsonObject logprobs, String finishReason) {}

  /** The delta this chunk carries, or null when it is not one choice's delta. */
  default OfChoice ofChoice() {
    return null;
  }

  /** {@code chunk}'s event as its {@link #appendSse} renders it, in a buffer of its own. */
  static Buffer rendered(ClientChunk chunk) {
    JsonBytes w = JsonBytes.threadWriter();
    chunk.appendSse(w);
    return w.toBuffer();
  }

  /** Writes {@link #toSse()}'s bytes to {@code out} (rendered there directly, where the chunk can). */
  default void appendSse(JsonBytes out) {
    out.raw(toSse());
  }
}
