package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.api.FastJson;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.admission.RateLimited;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.metrics.RequestClock;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions}: the body as JSON, the
 * endpoint's {@link PreparedRequest.Preparer}, admission (the key's limits, a running slot: a 429
 * with {@code Retry-After} beyond them), then the answer as SSE or one JSON body, with the key's
 * {@code x-ratelimit-*} headers. A client that closes its connection cancels the request: it
 * leaves the queue, or the engine request is reset (the engine aborts), D's reservation released,
 * counters released.
 */
final class CompletionsHandler implements Handler<RoutingContext> {

  private final PreparedRequest.Preparer preparer;
  private final RouterMetrics metrics;
  private final RequestRunner runner;

  CompletionsHandler(PreparedRequest.Preparer preparer, RouterMetrics metrics, RequestRunner runner) {
    this.preparer = preparer;
    this.metrics = metrics;
    this.runner = runner;
  }

  @Override
  public void handle(RoutingContext ctx) {
    metrics.requestStarted();
    RequestClock clock = new RequestClock();
    HttpServerResponse response = ctx.response();
    ClientKey key = ctx.get(ClientKey.CONTEXT_KEY, ClientKey.ANONYMOUS);
    JsonObject body;
    try {
      body = fastBody(ctx);
    } catch (RuntimeException e) {
      refuse(response, ApiError.invalid(null, "invalid_json", "the body is not valid JSON: " + e.getMessage()));
      return;
    }
    if (body == null) {
      refuse(response, ApiError.invalid(null, "invalid_json", "the body must be a JSON object"));
      return;
    }
    Cancellation cancellation = new Cancellation();
    response.closeHandler(v -> cancellation.cancel());
    preparer.prepare(body, cancellation).onComplete(prepared -> {
      if (prepared.failed()) {
        refuse(response, prepared.cause());
        return;
      }
      PreparedRequest request = prepared.result();
      runner.admit(key, request, cancellation).onComplete(admitted -> {
        if (admitted.failed()) {
          if (admitted.cause() instanceof RateLimited r && r.headers() != null) {
            r.headers().addTo(response.headers());
          }
          refuse(response, admitted.cause());
          return;
        }
        if (admitted.result().headers() != null) {
          admitted.result().headers().addTo(response.headers());
        }
        ClientOutput output = request.stream()
            ? new SseOutput(response, request.includeUsage())
            : new JsonOutput(response);
        runner.run(request, admitted.result(), output, clock);
      });
    });
  }

  /**
   * The body as a JSON object by the streaming codec; anything else as Vert.x reads it (its
   * errors); null for no body or JSON that is not an object.
   */
  private static JsonObject fastBody(RoutingContext ctx) {
    io.vertx.core.buffer.Buffer buf = ctx.body().buffer();
    if (buf != null && buf.length() > 0) {
      try {
        return FastJson.parseObject(buf);
      } catch (RuntimeException notAnObject) {
        // fall through: Vert.x's own reading says what is wrong
      }
    }
    // null (no body) or the value Vert.x reads; JSON that is not an object is "not an object"
    Object value = buf == null || buf.length() == 0 ? null : io.vertx.core.json.Json.decodeValue(buf);
    return value instanceof JsonObject object ? object : null;
  }

  private void refuse(HttpServerResponse response, Throwable error) {
    runner.refused(error);
    metrics.requestEnded(ErrorResponses.send(response, error));
  }
}
