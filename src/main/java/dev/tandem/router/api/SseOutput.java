package dev.tandem.router.api;

import dev.tandem.api.ErrorResponses;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A streaming HTTP answer in MLC's SSE framing (reference §3.4): {@code data: <json>\n\n} per
 * chunk, {@code data: [DONE]} at the end. Headers go out with the first chunk, so a failure
 * before it is still a proper error status; after it, a failure is an error event
 * {@code data: {"error": {...}}} and the stream closes without {@code [DONE]}.
 */
final class SseOutput implements ClientOutput {

  private final HttpServerResponse response;
  private final boolean includeUsage;
  private boolean done;

  SseOutput(HttpServerResponse response, boolean includeUsage) {
    this.response = response;
    this.includeUsage = includeUsage;
  }

  @Override
  public void write(ClientChunk chunk) {
    if (done || response.closed()) {
      return;
    }
    ensureHead();
    response.write(chunk.toSse());
  }

  private void ensureHead() {
    if (!response.headWritten()) {
      response.setStatusCode(200).setChunked(true)
          .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
          .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache");
    }
  }

  @Override
  public boolean writeQueueFull() {
    return !response.closed() && response.writeQueueFull();
  }

  @Override
  public void drainHandler(Handler<Void> handler) {
    response.drainHandler(handler);
  }

  @Override
  public void complete(JsonObject whole, JsonObject usage) {
    if (done || response.closed()) {
      return;
    }
    done = true;
    ensureHead();
    // The usage chunk and [DONE] leave in one write: one packet, one syscall.
    Buffer last = Buffer.buffer();
    if (includeUsage) {
      JsonObject usageChunk = whole.copy().put("choices", new JsonArray()).put("usage", usage);
      last.appendString("data: ").appendString(usageChunk.encode()).appendString("\n\n");
    }
    response.end(last.appendString("data: [DONE]\n\n"));
  }

  @Override
  public void fail(Throwable error) {
    if (done || response.closed()) {
      return;
    }
    done = true;
    if (!response.headWritten()) {
      ErrorResponses.send(response, error);
      return;
    }
    response.end("data: " + ErrorResponses.typed(error).toJson().encode() + "\n\n");
  }
}
