package dev.tandem.router.api;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions}: the body as JSON, the
 * endpoint's {@link PreparedRequest.Preparer}, then the answer as SSE or one JSON body. A client
 * that closes its connection cancels the request: the engine request is reset (the engine
 * aborts), D's reservation released, counters released.
 */
final class CompletionsHandler implements Handler<RoutingContext> {

  private final PreparedRequest.Preparer preparer;
  private final RouterMetrics metrics;

  CompletionsHandler(PreparedRequest.Preparer preparer, RouterMetrics metrics) {
    this.preparer = preparer;
    this.metrics = metrics;
  }

  @Override
  public void handle(RoutingContext ctx) {
    metrics.requestStarted();
    HttpServerResponse response = ctx.response();
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (RuntimeException e) {
      metrics.requestEnded(ErrorResponses.send(response, ApiError.invalid(null, "invalid_json", "the body is not valid JSON: " + e.getMessage())));
      return;
    }
    if (body == null) {
      metrics.requestEnded(ErrorResponses.send(response, ApiError.invalid(null, "invalid_json", "the body must be a JSON object")));
      return;
    }
    Cancellation cancellation = new Cancellation();
    response.closeHandler(v -> cancellation.cancel());
    preparer.prepare(body, cancellation).onComplete(ar -> {
      if (ar.failed()) {
        metrics.requestEnded(ErrorResponses.send(response, ar.cause()));
        return;
      }
      ClientOutput output = ar.result().stream()
          ? new SseOutput(response, ar.result().includeUsage())
          : new JsonOutput(response);
      ar.result().execute(output);
    });
  }
}
