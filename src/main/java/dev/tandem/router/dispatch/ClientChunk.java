package dev.tandem.router.dispatch;

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

  /** Appends {@link #toSse()}'s bytes to {@code out} (directly, where the chunk can). */
  default void appendSse(Buffer out) {
    out.appendBuffer(toSse());
  }
}
