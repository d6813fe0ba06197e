package dev.tandem.router.api;

import dev.tandem.api.SseWriter;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A streaming HTTP answer through the shared {@link SseWriter}: deltas go out as the bytes
 * {@link ClientChunk#toSse()} rendered, the usage chunk (if asked for) and {@code [DONE]} in one
 * last write, and a failure after the first chunk as an error event without {@code [DONE]}.
 */
final class SseOutput implements ClientOutput {

  private final SseWriter sse;
  private final boolean includeUsage;

  SseOutput(HttpServerResponse response, boolean includeUsage) {
    this.sse = new SseWriter(response);
    this.includeUsage = includeUsage;
  }

  @Override
  public void write(ClientChunk chunk) {
    if (!sse.ended()) {
      sse.writeFramed(chunk.toSse());
    }
  }

  @Override
  public boolean writeQueueFull() {
    return sse.writeQueueFull();
  }

  @Override
  public void drainHandler(Handler<Void> handler) {
    sse.drainHandler(handler);
  }

  @Override
  public void complete(JsonObject whole, JsonObject usage) {
    sse.end(includeUsage ? whole.copy().put("choices", new JsonArray()).put("usage", usage) : null);
  }

  @Override
  public void fail(Throwable error) {
    sse.fail(error);
  }
}
