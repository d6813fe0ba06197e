package dev.tandem.router.dispatch;

import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;

/**
 * Where a request's answer goes: an HTTP response (SSE or whole JSON) or event-bus messages.
 * The flow calls exactly one of {@link #complete} or {@link #fail}; implementations ignore
 * anything after that.
 */
public interface ClientOutput {

  /** A streamed chunk (only called for streaming requests). */
  void write(ClientChunk chunk);

  boolean writeQueueFull();

  void drainHandler(Handler<Void> handler);

  /**
   * The answer is complete.
   *
   * @param response the whole aggregated answer (what a non-streaming client receives)
   * @param usage the request's usage (a streaming client receives it as a last chunk if asked)
   */
  void complete(JsonObject response, JsonObject usage);

  /** The request failed: an error status if nothing was sent yet, else an error event. */
  void fail(Throwable error);
}
