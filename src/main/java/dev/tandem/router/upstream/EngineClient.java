package dev.tandem.router.upstream;

import dev.tandem.api.FleetSecret;
import dev.tandem.api.FastJson;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's only way to talk to engines: one pooled keep-alive HTTP/1.1 client (no proxy: the
 * engines are ours, and MLC routing them through HTTP_PROXY is reference §6 item 14), with every
 * call bounded by a stage timeout and stopped by the client's {@link Cancellation}. Failures come
 * back as {@link UpstreamException} (or {@link ClientGoneException}).
 */
public final class EngineClient {

  private static final Logger LOG = LoggerFactory.getLogger(EngineClient.class);

  /** Told how long each engine call took until the engine answered (a stream's head), and how it ended. */
  @FunctionalInterface
  public interface CallObserver {
    /** @param call the call's last path segment: prep_recv, remote_send, start_generate, completions, release */
    void call(String call, int engineId, boolean ok, long nanos);
  }

  private final Vertx vertx;
  private final HttpClientAgent http;
  private volatile CallObserver observer = (call, engine, ok, nanos) -> {};

  /**
   * @param connectTimeoutMs TCP connect limit
   * @param maxConnectionsPerEngine pool size per engine; every live stream holds one connection
   */
  public EngineClient(Vertx vertx, int connectTimeoutMs, int maxConnectionsPerEngine) {
    this.vertx = vertx;
    HttpClientOptions options = new HttpClientOptions()
        .setKeepAlive(true)
        .setPipelining(false)
        .setTcpNoDelay(true)
        .setConnectTimeout(connectTimeoutMs)
        .setProxyOptions(null);
    PoolOptions pool = new PoolOptions()
        .setHttp1MaxSize(maxConnectionsPerEngine)
        .setMaxWaitQueueSize(-1);
    // An idle pooled connection reset by a dying engine has no request to fail: note it quietly.
    this.http = vertx.httpClientBuilder().with(options).with(pool)
        .withConnectHandler(conn -> conn.exceptionHandler(e ->
            LOG.debug("engine connection {}: {}", conn.remoteAddress(), e.toString())))
        .build();
  }

  /** Observes every later call (the router's latency histograms). */
  public void observe(CallObserver callObserver) {
    this.observer = callObserver;
  }

  private <T> Future<T> timed(String path, int engineId, long startNanos, Future<T> call) {
    return call.andThen(ar -> observer.call(path.substring(path.lastIndexOf('/') + 1), engineId,
        ar.succeeded(), System.nanoTime() - startNanos));
  }

  /** POSTs {@code body} and returns the engine's 2xx JSON object answer. */
  public Future<JsonObject> postJson(int engineId, String baseUrl, String path, JsonObject body,
      String stage, long timeoutMs, Cancellation cancel) {
    long start = System.nanoTime();
    Promise<JsonObject> result = Promise.promise();
    CallGuard guard = new CallGuard(vertx, cancel, result::tryFail);
    guard.armTimer(timeoutMs, () -> UpstreamException.timeout(engineId, stage, timeoutMs));
    send(engineId, baseUrl, path, body, stage, guard).onSuccess(resp -> resp.body()
        .onFailure(e -> guard.fail(UpstreamException.broken(engineId, stage, String.valueOf(e.getMessage()))))
        .onSuccess(buf -> {
          if (guard.finished()) {
            return;
          }
          if (resp.statusCode() / 100 != 2) {
            guard.fail(statusFailure(engineId, stage, resp.statusCode(), buf), false);
            return;
          }
          JsonObject json;
          try {
            json = buf.toJsonObject();
          } catch (DecodeException | ClassCastException e) {
            guard.fail(UpstreamException.protocol(engineId, stage, "body is not a JSON object"), false);
            return;
          }
          guard.done();
          result.tryComplete(json);
        }));
    return timed(path, engineId, start, result.future());
  }

  /**
   * POSTs {@code body} for a streamed (SSE) answer. Completes once the engine answered 2xx; a
   * non-2xx answer fails it. The returned stream is paused until {@link EngineStream#start}.
   *
   * @param firstChunkTimeoutMs limit from sending until the first chunk (queueing + prefill)
   * @param idleTimeoutMs limit on the silence between two chunks afterwards
   */
  public Future<EngineStream> openStream(int engineId, String baseUrl, String path, JsonObject body,
      String stage, long firstChunkTimeoutMs, long idleTimeoutMs, Cancellation cancel) {
    long start = System.nanoTime();
    Promise<EngineStream> head = Promise.promise();
    EngineStream[] stream = new EngineStream[1];
    CallGuard guard = new CallGuard(vertx, cancel, e -> {
      if (stream[0] != null) {
        stream[0].fail(e);
      } else {
        head.tryFail(e);
      }
    });
    guard.armTimer(firstChunkTimeoutMs,
        () -> UpstreamException.timeout(engineId, stage + " (first chunk)", firstChunkTimeoutMs));
    send(engineId, baseUrl, path, body, stage, guard).onSuccess(resp -> {
      if (guard.finished()) {
        return;
      }
      if (resp.statusCode() / 100 != 2) {
        resp.body()
            .onFailure(e -> guard.fail(UpstreamException.broken(engineId, stage, String.valueOf(e.getMessage()))))
            .onSuccess(buf -> guard.fail(statusFailure(engineId, stage, resp.statusCode(), buf), false));
        return;
      }
      stream[0] = new EngineStream(resp, guard, engineId, stage, firstChunkTimeoutMs, idleTimeoutMs);
      head.tryComplete(stream[0]);
    });
    return timed(path, engineId, start, head.future());
  }

  /** An engine's base URL, parsed once (not per request). */
  private record Origin(String host, int port, boolean ssl, String pathPrefix) {

    static Origin parse(String baseUrl) {
      java.net.URI uri = java.net.URI.create(baseUrl);
      boolean ssl = "https".equalsIgnoreCase(uri.getScheme());
      String prefix = uri.getRawPath() == null ? "" : uri.getRawPath();
      return new Origin(uri.getHost(), uri.getPort() >= 0 ? uri.getPort() : ssl ? 443 : 80, ssl,
          prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix);
    }

    RequestOptions options(String path) {
      return new RequestOptions().setMethod(HttpMethod.POST).setHost(host).setPort(port).setSsl(ssl)
          .setURI(pathPrefix + path).putHeader(HttpHeaders.CONTENT_TYPE, APPLICATION_JSON);
    }
  }

  private static final CharSequence APPLICATION_JSON = HttpHeaders.createOptimized("application/json");
  private final java.util.Map<String, Origin> origins = new java.util.concurrent.ConcurrentHashMap<>();

  /** The fleet's secret, sent with every call (engines beyond loopback require it); null: none. */
  private volatile String fleetSecret;

  public void fleetSecret(String secret) {
    this.fleetSecret = secret;
  }

  private Origin origin(String baseUrl) {
    return origins.computeIfAbsent(baseUrl, Origin::parse);
  }

  public Future<Void> close() {
    return http.close();
  }

  /** A closed client throws instead of failing the future: make it a failure like any other. */
  private Future<io.vertx.core.http.HttpClientRequest> request(RequestOptions options) {
    try {
      return http.request(options);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private Future<HttpClientResponse> send(int engineId, String baseUrl, String path,
      JsonObject body, String stage, CallGuard guard) {
    Promise<HttpClientResponse> response = Promise.promise();
    RequestOptions options;
    try {
      options = origin(baseUrl).options(path);
      String secret = fleetSecret;
      if (secret != null) {
        options.putHeader(FleetSecret.HEADER, secret);
      }
    } catch (IllegalArgumentException badUrl) {
      guard.fail(UpstreamException.unreachable(engineId, stage, badUrl));
      return response.future();
    }
    Buffer payload = FastJson.toBuffer(body);
    request(options)
        .onFailure(e -> guard.fail(UpstreamException.unreachable(engineId, stage, e)))
        .onSuccess(req -> {
          guard.attach(req);
          if (guard.finished()) {
            return;
          }
          req.send(payload)
              .onFailure(e -> guard.fail(UpstreamException.unreachable(engineId, stage, e)))
              .onSuccess(resp -> {
                // A failure of the response body after this point is a broken stream.
                resp.exceptionHandler(e -> guard.fail(
                    UpstreamException.broken(engineId, stage, String.valueOf(e.getMessage()))));
                response.complete(resp);
              });
        });
    return response.future();
  }

  /**
   * Engine 4xx stays a 4xx with the engine's message, except 404/409 about request ids, which are
   * the router's business; 503 means "no room now" (the builtin engine's answer to prep_recv
   * with a full KV cache); anything else is the engine's failure.
   */
  static UpstreamException statusFailure(int engineId, String stage, int status, Buffer body) {
    EngineErrorBody error = EngineErrorBody.parse(body);
    if (status == 503) {
      return UpstreamException.busy(engineId, stage, error.message());
    }
    if (status == 404 || status == 409) {
      // An unknown or duplicate request id (a reservation expired, an abort not yet done): the
      // router's bookkeeping with that engine went wrong, not the client's request. Retriable.
      return UpstreamException.protocol(engineId, stage, "HTTP " + status + ": " + error.message());
    }
    if (status >= 400 && status < 500) {
      return UpstreamException.rejected(engineId, status, error.type(), error.code(),
          error.param(), error.message());
    }
    return UpstreamException.engineError(engineId, stage, status, error.message());
  }
}
