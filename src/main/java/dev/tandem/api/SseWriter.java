package dev.tandem.api;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/**
 * A streamed completion in MLC's SSE framing (reference §3.4), the one writer of router and
 * engine: {@code data: <json>\n\n} per event and {@code data: [DONE]\n\n} at the end. The head
 * (200, {@code text/event-stream}, no caching) goes out with the first event, so that a failure
 * before it can still be a proper error status. Calls after the end are ignored.
 *
 * <p>Events come either as JSON ({@link #write(JsonObject)}) or as bytes already framed
 * ({@link #writeFramed}), for a writer that renders its most frequent event straight to bytes
 * with {@link #DATA} and {@link #EVENT_END}. Back-pressure is the caller's: it asks
 * {@link #writeQueueFull()} and waits for {@link #drainHandler}.
 */
public final class SseWriter {
  /** What starts every event. */
  public static final String DATA = "data: ";
  /** What ends every event: the blank line. */
  public static final String EVENT_END = "\n\n";
  private static final String DONE = DATA + "[DONE]" + EVENT_END;
  // The head's values as Netty's ASCII strings: the encoder copies their bytes as they are
  // instead of converting each char (1.6% of the router's event loop went to header encoding).
  private static final CharSequence EVENT_STREAM =
      HttpHeaders.createOptimized("text/event-stream; charset=utf-8");
  private static final CharSequence NO_CACHE = HttpHeaders.createOptimized("no-cache");

  private final HttpServerResponse response;
  private boolean ended;

  public SseWriter(HttpServerResponse response) {
    this.response = response;
  }

  /**
   * {@code data: <json>\n\n}, the JSON written straight as bytes where it holds plain values,
   * else as {@code json.encode()} writes it (a lone surrogate becomes '?', as it always did).
   */
  public static Buffer frame(JsonObject json) {
    Buffer out = Buffer.buffer(256).appendString(DATA);
    return FastJson.appendPlain(out, json) ? out.appendString(EVENT_END) : frame(json.encode());
  }

  /** {@code data: <json>\n\n}. */
  public static Buffer frame(String json) {
    return Buffer.buffer(json.length() + 8).appendString(DATA).appendString(json).appendString(EVENT_END);
  }

  /** True once the head went out (the stream started). */
  public boolean started() {
    return response.headWritten();
  }

  /** True once the stream ended (normally or not), or the client is gone. */
  public boolean ended() {
    return ended || response.closed();
  }

  /** Sends the head now, if it has not gone out yet. */
  public SseWriter start() {
    if (!response.headWritten()) {
      head();
      response.setChunked(true);
    }
    return this;
  }

  /**
   * 200 and the stream's headers, before the head is written. Every setter of Vert.x's response
   * takes the connection's lock, a fence that waits for earlier stores (BENCHMARKS.md, session
   * 21); the status is 200 unless something set another, and the header map is set directly (on
   * the response's own event loop, like every call here).
   */
  private void head() {
    if (response.getStatusCode() != 200) {
      response.setStatusCode(200);
    }
    response.headers().set(HttpHeaders.CONTENT_TYPE, EVENT_STREAM)
        .set(HttpHeaders.CACHE_CONTROL, NO_CACHE);
  }

  /** One event with {@code json} as its data. */
  public void write(JsonObject json) {
    writeFramed(frame(json));
  }

  /**
   * One or more whole events, framed by the caller ({@code data: ...\n\n}); completes once they
   * were written to the socket or dropped (the stream had ended).
   */
  public Future<Void> writeFramed(Buffer events) {
    if (ended()) {
      return Future.succeededFuture();
    }
    start();
    return response.write(events);
  }

  /** Ends the stream with {@code [DONE]}, after {@code last} when not null, in one write. */
  public void end(JsonObject last) {
    end(null, last);
  }

  /**
   * Ends the stream in one write: {@code events} (framed by the caller, may be null), then
   * {@code last} when not null, then {@code [DONE]}. When nothing went out before, the whole
   * stream is one response of known length (no chunked framing). Completes once that write
   * went to the socket or failed, or at once when the stream had already ended.
   */
  public Future<Void> end(Buffer events, JsonObject last) {
    if (ended()) {
      return Future.succeededFuture();
    }
    ended = true;
    Buffer tail = events != null ? events : Buffer.buffer(DONE.length() + (last == null ? 0 : 256));
    if (last != null) {
      FastJson.appendTo(tail.appendString(DATA), last).appendString(EVENT_END);
    }
    tail.appendString(DONE);
    if (!response.headWritten()) {
      head();
    }
    return response.end(tail);
  }

  /**
   * Ends the stream for {@code error}: its status and OpenAI error body if nothing was sent yet,
   * else an error event {@code data: {"error": {...}}\n\n} and no {@code [DONE]}, so that a
   * client cannot mistake the stream for a whole answer.
   */
  public void fail(Throwable error) {
    if (ended()) {
      return;
    }
    ended = true;
    if (!response.headWritten()) {
      ErrorResponses.send(response, error);
      return;
    }
    response.end(frame(ErrorResponses.typed(error).toJson().encode()));
  }

  /** Whether the client is behind: stop producing until {@link #drainHandler} runs. */
  public boolean writeQueueFull() {
    return !response.closed() && response.writeQueueFull();
  }

  public void drainHandler(Handler<Void> handler) {
    response.drainHandler(handler);
  }
}
