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
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions}: the caller's key, the body
 * as JSON, the endpoint's {@link PreparedRequest.Preparer}, admission (the key's limits, a running
 * slot: a 429 with {@code Retry-After} beyond them), then the answer as SSE or one JSON body, with
 * the key's {@code x-ratelimit-*} headers. A client that closes its connection cancels the
 * request: it leaves the queue, or the engine request is reset (the engine aborts), D's
 * reservation released, counters released.
 *
 * <p>The exact paths come straight from the HTTP server ({@link #handle(HttpServerRequest)}, the
 * router's hot path: no Web routing context, no body handler); anything else on them (a trailing
 * slash) through Vert.x Web ({@link #handle(RoutingContext)}). Both end in {@link #serve}.
 */
final class CompletionsHandler implements Handler<RoutingContext> {

  private final PreparedRequest.Preparer preparer;
  private final RouterMetrics metrics;
  private final RequestRunner runner;
  private final int maxBodyBytes;

  CompletionsHandler(PreparedRequest.Preparer preparer, RouterMetrics metrics, RequestRunner runner,
      int maxBodyBytes) {
    this.preparer = preparer;
    this.metrics = metrics;
    this.runner = runner;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** From Vert.x Web: the key and the body are the route's (AccessControl, BodyHandler). */
  @Override
  public void handle(RoutingContext ctx) {
    serve(ctx.response(), ctx.get(ClientKey.CONTEXT_KEY, ClientKey.ANONYMOUS), ctx.body().buffer());
  }

  /** From the HTTP server: the API key, then the body up to the limit (413 beyond it). */
  void handle(HttpServerRequest request) {
    HttpServerResponse response = request.response();
    ClientKey key;
    try {
      key = runner.access().checkApi(request.getHeader(HttpHeaders.AUTHORIZATION));
    } catch (ApiError e) {
      ErrorResponses.send(response, e);
      return;
    }
    long declared = contentLength(request.getHeader(HttpHeaders.CONTENT_LENGTH));
    if (declared > maxBodyBytes) {
      RouterApi.tooLarge(response, maxBodyBytes);
      return;
    }
    BodyReader body = new BodyReader(response, maxBodyBytes);
    request.handler(body);
    request.endHandler(v -> {
      if (!body.tooLarge) {
        serve(response, key, body.whole);
      }
    });
  }

  /**
   * The request body up to the limit (a 413 and nothing kept beyond it). Vert.x hands each
   * chunk over as a heap copy of its own, so a body that came in one chunk (nearly all of them)
   * is kept as it is rather than copied again; a second chunk starts a buffer of our own.
   */
  private static final class BodyReader implements Handler<Buffer> {
    private final HttpServerResponse response;
    private final int maxBodyBytes;
    private Buffer whole;
    /** Whether {@link #whole} is a buffer of ours (once a second chunk came), not Vert.x's. */
    private boolean owned;
    private boolean tooLarge;

    BodyReader(HttpServerResponse response, int maxBodyBytes) {
      this.response = response;
      this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void handle(Buffer data) {
      if (tooLarge) {
        return;
      }
      int have = whole == null ? 0 : whole.length();
      if (have + data.length() > maxBodyBytes) {
        tooLarge = true;
        whole = null;
        RouterApi.tooLarge(response, maxBodyBytes);
      } else if (whole == null) {
        whole = data;
        owned = false;
      } else {
        if (!owned) { // never write into the buffer Vert.x handed over
          whole = Buffer.buffer(Math.max(2 * have, have + data.length())).appendBuffer(whole);
          owned = true;
        }
        whole.appendBuffer(data);
      }
    }
  }

  private static long contentLength(String header) {
    if (header == null) {
      return -1;
    }
    try {
      return Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private void serve(HttpServerResponse response, ClientKey key, Buffer raw) {
    metrics.requestStarted();
    RequestClock clock = new RequestClock();
    JsonObject body;
    try {
      body = parse(raw);
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
   * The body as a JSON object by the streaming codec; anything else as Vert.x reads it (its error
   * message), null for no body or JSON that is not an object.
   */
  private static JsonObject parse(Buffer buf) {
    if (buf == null || buf.length() == 0) {
      return null;
    }
    try {
      return FastJson.parseObject(buf);
    } catch (RuntimeException notAnObject) {
      // fall through: Vert.x's own reading says what is wrong
    }
    Object value = io.vertx.core.json.Json.decodeValue(buf);
    return value instanceof JsonObject o ? o : null;
  }

  private void refuse(HttpServerResponse response, Throwable error) {
    runner.refused(error);
    metrics.requestEnded(ErrorResponses.send(response, error));
  }
}
