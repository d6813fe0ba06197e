package dev.tandem.router;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One of the router's HTTP API servers. Every instance listens on the router's address, Vert.x
 * hands each instance a share of the accepted connections on the instance's own event loop, and
 * each request runs there end to end: the client's HTTP, the engine connections (pooled per event
 * loop), the relay. What the requests of all loops share (the engine registry, the policies,
 * admission, the metrics) is thread-safe, so a request crosses no thread on its way. The
 * {@link RouterVerticle} deploys {@code --router-loops} instances as its child deployment, so they
 * are undeployed with it.
 */
final class ApiServerVerticle extends VerticleBase {

  /** Negative ports handed out so far: each router gets its own (see {@link #sharedPort}). */
  private static final AtomicInteger RANDOM_PORT_KEYS = new AtomicInteger();

  private final HttpServerOptions options;
  private final Supplier<Handler<HttpServerRequest>> handlers;
  private final List<HttpServer> listening;
  private HttpServer server;

  /**
   * @param options the router's address, as {@link #sharedPort} made it
   * @param handlers makes this instance's request handler (routes and handlers of its own)
   * @param listening where the instance adds its server once it listens
   */
  ApiServerVerticle(HttpServerOptions options, Supplier<Handler<HttpServerRequest>> handlers,
      List<HttpServer> listening) {
    this.options = options;
    this.handlers = handlers;
    this.listening = listening;
  }

  /**
   * The port every instance of one router listens on: the configured one, or for 0 (any free
   * port) a negative number of this router's own, which Vert.x binds to one random port shared by
   * every server given that same number (a plain 0 would give each instance a port of its own).
   */
  static int sharedPort(int configured) {
    return configured != 0 ? configured : RANDOM_PORT_KEYS.decrementAndGet();
  }

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer(options).requestHandler(handlers.get());
    return server.listen().onSuccess(listening::add);
  }

  @Override
  public Future<?> stop() {
    return server.close();
  }
}
