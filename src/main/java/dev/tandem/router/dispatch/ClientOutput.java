package dev.tandem.router.dispatch;

import io.vertx.core.Handler;

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
   * The answer is complete: {@code end}'s chunk is, for a non-streaming request, the whole
   * aggregated answer; for a stream, whose client already has the text, the usage chunk, which
   * the client receives last if it asked for usage.
   */
  void complete(AnswerEnd end);

  /** The request failed: an error status if nothing was sent yet, else an error event. */
  void fail(Throwable error);
}
