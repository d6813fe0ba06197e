package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.api.FastJson;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.admission.RateLimited;
import dev.tandem.router.admission.ShuttingDown;
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

  /** The header a client names its request with; echoed on the answer, kept in the access log. */
  static final String REQUEST_ID = "x-request-id";

  private final String api;
  private final PreparedRequest.Preparer preparer;
  private final RouterMetrics metrics;
  private final RequestRunner runner;
  private final int maxBodyBytes;

  /** @param api {@code completions} or {@code chat}, as the access log names it */
  CompletionsHandler(String api, PreparedRequest.Preparer preparer, RouterMetrics metrics,
      RequestRunner runner, int maxBodyBytes) {
    this.api = api;
    this.preparer = preparer;
    this.metrics = metrics;
    this.runner = runner;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** From Vert.x Web: the key and the body are the route's (AccessControl, BodyHandler). */
  @Override
  public void handle(RoutingContext ctx) {
    RequestClock clock = new RequestClock();
    serve(ctx.response(), origin(ctx.request(), ctx.get(ClientKey.CONTEXT_KEY, ClientKey.ANONYMOUS),
        ctx.response()), ctx.body().buffer(), clock);
  }

  /** From the HTTP server: the API key, then the body up to the limit (413 beyond it). */
  void handle(HttpServerRequest request) {
    RequestClock clock = new RequestClock();
    HttpServerResponse response = request.response();
    ClientKey key;
    try {
      key = runner.access().checkApi(request.getHeader(HttpHeaders.AUTHORIZATION));
    } catch (ApiError e) {
      runner.turnedAway(e, origin(request, null, response), clock);
      ErrorResponses.send(response, e);
      return;
    }
    RequestRunner.Origin origin = origin(request, key, response);
    long declared = contentLength(request.getHeader(HttpHeaders.CONTENT_LENGTH));
    if (declared > maxBodyBytes) {
      tooLarge(response, origin, clock);
      return;
    }
    BodyReader body = new BodyReader(() -> tooLarge(response, origin, clock), maxBodyBytes);
    request.handler(body);
    request.endHandler(v -> {
      if (!body.tooLarge) {
        serve(response, origin, body.whole, clock);
      }
    });
  }

  /**
   * Who sent the request, for the access log; the client's {@code X-Request-Id}, when it sent a
   * usable one, goes back on the answer.
   */
  private RequestRunner.Origin origin(HttpServerRequest request, ClientKey key,
      HttpServerResponse response) {
    String clientId = RequestRunner.Origin.clientRequestId(request.getHeader(REQUEST_ID));
    if (clientId != null) {
      response.putHeader(REQUEST_ID, clientId);
    }
    return new RequestRunner.Origin("http", api, key, clientId);
  }

  private void tooLarge(HttpServerResponse response, RequestRunner.Origin origin,
      RequestClock clock) {
    runner.turnedAway(RouterApi.tooLarge(response, maxBodyBytes), origin, clock);
  }

  /**
   * The request body up to the limit (a 413 and nothing kept beyond it). Vert.x hands each
   * chunk over as a heap copy of its own, so a body that came in one chunk (nearly all of them)
   * is kept as it is rather than copied again; a second chunk starts a buffer of our own.
   */
  private static final class BodyReader implements Handler<Buffer> {
    private final Runnable tooLargeAnswer;
    private final int maxBodyBytes;
    private Buffer whole;
    /** Whether {@link #whole} is a buffer of ours (once a second chunk came), not Vert.x's. */
    private boolean owned;
    private boolean tooLarge;

    BodyReader(Runnable tooLargeAnswer, int maxBodyBytes) {
      this.tooLargeAnswer = tooLargeAnswer;
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
        tooLargeAnswer.run();
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

  private void serve(HttpServerResponse response, RequestRunner.Origin origin, Buffer raw,
      RequestClock clock) {
    metrics.requestStarted();
    JsonObject body;
    try {
      body = parse(raw);
    } catch (RuntimeException e) {
      refuse(response, ApiError.invalid(null, "invalid_json", "the body is not valid JSON: " + e.getMessage()),
          origin, clock);
      return;
    }
    if (body == null) {
      refuse(response, ApiError.invalid(null, "invalid_json", "the body must be a JSON object"),
          origin, clock);
      return;
    }
    Cancellation cancellation = new Cancellation();
    response.closeHandler(v -> cancellation.cancel());
    preparer.prepare(body, cancellation).onComplete(prepared -> {
      if (prepared.failed()) {
        refuse(response, prepared.cause(), origin, clock);
        return;
      }
      PreparedRequest request = prepared.result();
      runner.admit(origin.key(), request, cancellation).onComplete(admitted -> {
        if (admitted.failed()) {
          if (admitted.cause() instanceof RateLimited r && r.headers() != null) {
            r.headers().addTo(response.headers());
          }
          refuse(response, admitted.cause(), origin, clock);
          return;
        }
        if (admitted.result().headers() != null) {
          admitted.result().headers().addTo(response.headers());
        }
        ClientOutput output = request.stream()
            ? new SseOutput(response, request.includeUsage())
            : new JsonOutput(response);
        runner.run(request, admitted.result(), output, clock, origin);
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

  private void refuse(HttpServerResponse response, Throwable error, RequestRunner.Origin origin,
      RequestClock clock) {
    runner.refused(error, origin, clock);
    if (error instanceof ShuttingDown && !response.headWritten()) {
      // a keep-alive client's next request goes to another router, not to this one's 503s
      response.putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
    }
    metrics.requestEnded(ErrorResponses.send(response, error));
  }
}
