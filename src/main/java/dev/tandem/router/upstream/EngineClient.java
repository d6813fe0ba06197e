package dev.tandem.router.upstream;

import dev.tandem.api.FleetSecret;
import dev.tandem.api.FastJson;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;

/**
 * The router's only way to talk to engines: pooled keep-alive HTTP/1.1 connections per engine
 * and event loop ({@link EngineConnectionPool}, Netty directly: no proxy, since the engines are
 * ours and MLC routing them through HTTP_PROXY is reference §6 item 14), with every call bounded
 * by a stage timeout and stopped by the client's {@link Cancellation}. Failures come back as
 * {@link UpstreamException} (or {@link ClientGoneException}): a connection that failed before the
 * engine answered is "unreachable", one that broke during the answer is "broken".
 */
public final class EngineClient {

  /** Told how long each engine call took until the engine answered (a stream's head), and how it ended. */
  @FunctionalInterface
  public interface CallObserver {
    /** @param call the call's last path segment: prep_recv, remote_send, start_generate, completions, release */
    void call(String call, int engineId, boolean ok, long nanos);
  }

  private final VertxInternal vertx;
  private final int connectTimeoutMs;
  private final int maxConnectionsPerEngine;
  private final Map<PoolKey, EngineConnectionPool> pools = new ConcurrentHashMap<>();
  private volatile SslContext tls;
  private volatile boolean closed;
  private volatile CallObserver observer = (call, engine, ok, nanos) -> {};

  /** Connections are per engine origin and per event loop (each pool is used on its loop only). */
  private record PoolKey(EventLoop loop, String baseUrl) {}

  /**
   * @param connectTimeoutMs TCP connect limit
   * @param maxConnectionsPerEngine pool size per engine; every live stream holds one connection
   */
  public EngineClient(Vertx vertx, int connectTimeoutMs, int maxConnectionsPerEngine) {
    this.vertx = (VertxInternal) vertx;
    this.connectTimeoutMs = connectTimeoutMs;
    this.maxConnectionsPerEngine = maxConnectionsPerEngine;
  }

  /** Observes every later call (the router's latency histograms). */
  public void observe(CallObserver callObserver) {
    this.observer = callObserver;
  }

  private <T> Future<T> timed(String path, int engineId, long startNanos, Future<T> call) {
    String name = callName(path);
    return call.andThen(ar -> observer.call(name, engineId, ar.succeeded(),
        System.nanoTime() - startNanos));
  }

  /** A few paths, each named once: not a new substring (and its hash) per call. */
  private final Map<String, String> callNames = new ConcurrentHashMap<>();

  private String callName(String path) {
    String name = callNames.get(path);
    return name != null ? name
        : callNames.computeIfAbsent(path, p -> p.substring(p.lastIndexOf('/') + 1));
  }

  /** POSTs {@code body} and returns the engine's 2xx JSON object answer. */
  public Future<JsonObject> postJson(int engineId, String baseUrl, String path, JsonObject body,
      String stage, long timeoutMs, Cancellation cancel) {
    return postJson(engineId, baseUrl, path, FastJson.toBuffer(body), stage, timeoutMs, cancel);
  }

  /** As {@link #postJson(int, String, String, JsonObject, String, long, Cancellation)}, the body as JSON bytes. */
  public Future<JsonObject> postJson(int engineId, String baseUrl, String path, Buffer body,
      String stage, long timeoutMs, Cancellation cancel) {
    long start = System.nanoTime();
    Promise<JsonObject> result = Promise.promise();
    CallGuard guard = new CallGuard(vertx, cancel, result::tryFail);
    guard.armTimer(timeoutMs, () -> UpstreamException.timeout(engineId, stage, timeoutMs));
    send(engineId, baseUrl, path, body, stage, guard, new Answer(engineId, stage, guard) {
      @Override
      void whole(int status, Buffer buf) {
        if (status / 100 != 2) {
          guard.fail(statusFailure(engineId, stage, status, buf), false);
          return;
        }
        JsonObject json;
        try {
          json = FastJson.parseObject(buf); // not Vert.x's databind: a MicroServing answer per call
        } catch (DecodeException | ClassCastException e) {
          guard.fail(UpstreamException.protocol(engineId, stage, "body is not a JSON object"), false);
          return;
        }
        guard.done();
        result.tryComplete(json);
      }
    });
    return timed(path, engineId, start, result.future());
  }

  /**
   * POSTs {@code body} (JSON bytes) for a streamed (SSE) answer. Completes once the engine answered 2xx; a
   * non-2xx answer fails it. The returned stream is paused until {@link EngineStream#start}.
   *
   * @param firstChunkTimeoutMs limit from sending until the first chunk (queueing + prefill)
   * @param idleTimeoutMs limit on the silence between two chunks afterwards
   */
  public Future<EngineStream> openStream(int engineId, String baseUrl, String path, Buffer body,
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
    send(engineId, baseUrl, path, body, stage, guard, new Answer(engineId, stage, guard) {
      @Override
      boolean streams(int status) {
        if (status / 100 != 2 || guard.finished()) {
          return false;
        }
        stream[0] = new EngineStream(connection, guard, engineId, stage, firstChunkTimeoutMs,
            idleTimeoutMs);
        head.tryComplete(stream[0]);
        return true;
      }

      @Override
      void data(ByteBuf data) {
        stream[0].data(data);
      }

      @Override
      void ended() {
        stream[0].ended();
      }

      @Override
      void whole(int status, Buffer buf) {
        guard.fail(statusFailure(engineId, stage, status, buf), false);
      }
    });
    return timed(path, engineId, start, head.future());
  }

  /**
   * One call's answer from its connection: a whole body ({@link #whole}), unless the call
   * {@link #streams} its 2xx answer ({@link #data}, {@link #ended}). A connection that fails
   * before the engine answered makes the engine unreachable; one that breaks after, the stream
   * broken.
   */
  private abstract static class Answer implements EngineConnection.Exchange {
    final int engineId;
    final String stage;
    final CallGuard guard;
    EngineConnection connection;
    private int status;
    private boolean streaming;
    private Buffer body;

    Answer(int engineId, String stage, CallGuard guard) {
      this.engineId = engineId;
      this.stage = stage;
      this.guard = guard;
    }

    /** The answer's status: true to take its body as a stream. */
    boolean streams(int status) {
      return false;
    }

    void data(ByteBuf data) {}

    void ended() {}

    /** The whole body of an answer that is not streamed. */
    abstract void whole(int status, Buffer body);

    @Override
    public void head(HttpResponse response) {
      status = response.status().code();
      streaming = streams(status);
    }

    @Override
    public void content(ByteBuf data) {
      if (streaming) {
        data(data);
      } else if (!guard.finished()) {
        byte[] bytes = new byte[data.readableBytes()];
        data.getBytes(data.readerIndex(), bytes);
        if (body == null) {
          body = Buffer.buffer(bytes);
        } else {
          body.appendBytes(bytes);
        }
      }
    }

    @Override
    public void end() {
      if (streaming) {
        ended();
      } else if (!guard.finished()) {
        whole(status, body == null ? Buffer.buffer() : body);
      }
    }

    @Override
    public void broken(Throwable cause, boolean answered) {
      guard.fail(answered
          ? UpstreamException.broken(engineId, stage, String.valueOf(cause.getMessage()))
          : UpstreamException.unreachable(engineId, stage, cause));
    }
  }

  /** An engine's base URL, parsed once (not per request). */
  private record Origin(String host, int port, boolean ssl, String pathPrefix) {

    static Origin parse(String baseUrl) {
      java.net.URI uri = java.net.URI.create(baseUrl);
      if (uri.getHost() == null) {
        throw new IllegalArgumentException("no host in " + baseUrl);
      }
      boolean ssl = "https".equalsIgnoreCase(uri.getScheme());
      String prefix = uri.getRawPath() == null ? "" : uri.getRawPath();
      return new Origin(uri.getHost(), uri.getPort() >= 0 ? uri.getPort() : ssl ? 443 : 80, ssl,
          prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix);
    }
  }

  private final Map<String, Origin> origins = new ConcurrentHashMap<>();

  /** The fleet's secret, sent with every call (engines beyond loopback require it); null: none. */
  private volatile String fleetSecret;

  public void fleetSecret(String secret) {
    this.fleetSecret = secret;
  }

  private Origin origin(String baseUrl) {
    return origins.computeIfAbsent(baseUrl, Origin::parse);
  }

  public Future<Void> close() {
    closed = true;
    List<Future<Void>> closing = new ArrayList<>();
    pools.values().forEach(pool -> closing.add(pool.close()));
    pools.clear();
    return Future.all(closing).mapEmpty();
  }

  private EngineConnectionPool pool(String baseUrl, Origin origin) throws SSLException {
    ContextInternal context = ContextInternal.current();
    if (context == null) {
      context = vertx.getOrCreateContext();
    }
    PoolKey key = new PoolKey(context.nettyEventLoop(), baseUrl);
    EngineConnectionPool pool = pools.get(key);
    if (pool == null) {
      SslContext clientTls = origin.ssl() ? tls() : null;
      ContextInternal owner = context;
      pool = pools.computeIfAbsent(key, k -> new EngineConnectionPool(vertx, owner, origin.host(),
          origin.port(), clientTls, connectTimeoutMs, maxConnectionsPerEngine));
    }
    return pool;
  }

  /** The JDK's trusted certificates, made once, for engines behind https. */
  private SslContext tls() throws SSLException {
    SslContext context = tls;
    if (context == null) {
      context = SslContextBuilder.forClient().build();
      tls = context;
    }
    return context;
  }

  private void send(int engineId, String baseUrl, String path, Buffer payload, String stage,
      CallGuard guard, Answer answer) {
    Origin origin;
    EngineConnectionPool pool;
    try {
      if (closed) {
        throw new IllegalStateException("the engine client is closed");
      }
      origin = origin(baseUrl);
      pool = pool(baseUrl, origin);
    } catch (IllegalArgumentException | IllegalStateException | SSLException e) {
      guard.fail(UpstreamException.unreachable(engineId, stage, e));
      return;
    }
    if (!pool.onItsLoop()) {
      // a caller off a router event loop (a test's thread): the pool is used on its loop only
      pool.context().runOnContext(v -> acquireAndSend(pool, origin, path, payload, engineId, stage,
          guard, answer));
      return;
    }
    acquireAndSend(pool, origin, path, payload, engineId, stage, guard, answer);
  }

  private void acquireAndSend(EngineConnectionPool pool, Origin origin, String path,
      Buffer payload, int engineId, String stage, CallGuard guard, Answer answer) {
    pool.acquire().onComplete(acquired -> {
      if (acquired.failed()) {
        guard.fail(UpstreamException.unreachable(engineId, stage, acquired.cause()));
        return;
      }
      EngineConnection connection = acquired.result();
      if (guard.finished()) {
        pool.release(connection);
        return;
      }
      answer.connection = connection;
      guard.attach(() -> connection.reset(answer));
      connection.send(pool.head(origin.pathPrefix() + path, FleetSecret.HEADER, fleetSecret),
          ((BufferInternal) payload).getByteBuf(), answer);
    });
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
