package dev.tandem.bench;

import dev.tandem.api.SseParser;
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
import java.net.URI;

/**
 * Sends completions to one server over a pooled, keep-alive Vert.x HTTP/1.1 client: no thread per
 * request, every callback on the event loop of the context that created it. Each send ends in a
 * {@link RequestOutcome}; failures become outcomes with an error kind, never failed futures.
 */
public final class CompletionClient {

  private final HttpClientAgent client;
  private final RequestOptions base;
  private final String model;
  private final boolean stream;
  private final boolean ignoreEos;
  private final BenchApi api;

  /**
   * @param baseUrl e.g. {@code http://127.0.0.1:8000} (a trailing {@code /v1/completions} is accepted)
   * @param maxConnections pool size; requests beyond it wait for a free connection
   * @param timeoutMillis idle timeout: a request that receives nothing for this long fails
   */
  public CompletionClient(Vertx vertx, String baseUrl, int maxConnections, long timeoutMillis,
      String model, boolean stream, boolean ignoreEos) {
    this(vertx, baseUrl, maxConnections, timeoutMillis, model, stream, ignoreEos,
        BenchApi.COMPLETIONS);
  }

  /** As above, driving {@code api}'s endpoint. */
  public CompletionClient(Vertx vertx, String baseUrl, int maxConnections, long timeoutMillis,
      String model, boolean stream, boolean ignoreEos, BenchApi api) {
    URI uri = endpointUri(baseUrl, api);
    this.client = vertx.createHttpClient(
        new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true).setMaxInitialLineLength(8192),
        new PoolOptions().setHttp1MaxSize(maxConnections));
    this.base = new RequestOptions().setMethod(HttpMethod.POST).setHost(uri.getHost())
        .setPort(uri.getPort() < 0 ? 80 : uri.getPort()).setURI(uri.getRawPath())
        .setIdleTimeout(timeoutMillis).setConnectTimeout(Math.min(timeoutMillis, 10_000))
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
    this.model = model;
    this.stream = stream;
    this.ignoreEos = ignoreEos;
    this.api = api;
  }

  /** {@code http://h:p}, {@code http://h:p/} or {@code http://h:p/v1/completions} → the completions URI. */
  public static URI completionsUri(String baseUrl) {
    return endpointUri(baseUrl, BenchApi.COMPLETIONS);
  }

  /**
   * The URI of {@code api}'s endpoint under {@code baseUrl} ({@code http://h:p}, with or without a
   * trailing slash, {@code /v1/completions} or {@code /v1/chat/completions}).
   */
  public static URI endpointUri(String baseUrl, BenchApi api) {
    URI uri = URI.create(baseUrl.trim());
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException("--url must be http://HOST:PORT[/v1/completions], got " + baseUrl);
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    for (BenchApi a : BenchApi.values()) {
      if (path.endsWith(a.path())) {
        path = path.substring(0, path.length() - a.path().length());
      }
    }
    path = (path.endsWith("/") ? path.substring(0, path.length() - 1) : path) + api.path();
    return URI.create("http://" + uri.getRawAuthority() + path);
  }

  public Future<RequestOutcome> send(PlannedRequest request, boolean warmup) {
    Buffer body = CompletionRequestBody.buffer(request, model, stream, ignoreEos, api);
    ResponseCollector collector = new ResponseCollector(request, warmup, System.nanoTime());
    Promise<RequestOutcome> done = Promise.promise();
    client.request(new RequestOptions(base))
        .compose(req -> req.send(body))
        .onSuccess(resp -> onResponse(resp, collector, done))
        .onFailure(e -> done.tryComplete(collector.failed(e)));
    return done.future();
  }

  private void onResponse(HttpClientResponse resp, ResponseCollector collector, Promise<RequestOutcome> done) {
    if (resp.statusCode() != 200) {
      resp.body()
          .onSuccess(b -> done.tryComplete(collector.httpError(resp.statusCode(), b.toString())))
          .onFailure(e -> done.tryComplete(collector.httpError(resp.statusCode(), String.valueOf(e.getMessage()))));
      return;
    }
    String type = resp.getHeader(HttpHeaders.CONTENT_TYPE);
    if (!stream || type == null || !type.startsWith("text/event-stream")) {
      resp.body()
          .onSuccess(b -> done.tryComplete(collector.wholeBody(b)))
          .onFailure(e -> done.tryComplete(collector.failed(e)));
      return;
    }
    boolean[] sawDone = {false};
    SseParser parser = new SseParser(data -> {
      if (data.strip().equals("[DONE]")) {
        sawDone[0] = true;
      } else {
        collector.chunk(data);
      }
    });
    resp.handler(buf -> {
      if (!collector.finished()) {
        parser.feed(buf);
      }
    });
    resp.exceptionHandler(e -> done.tryComplete(collector.streamFailed(e)));
    resp.endHandler(v -> {
      parser.finish();
      done.tryComplete(collector.streamEnded(sawDone[0]));
    });
  }

  public Future<Void> close() {
    return client.close();
  }
}
