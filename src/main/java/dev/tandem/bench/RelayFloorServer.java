package dev.tandem.bench;

import dev.tandem.api.HttpServers;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpResponse;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.buffer.BufferInternal;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * A RELAY FLOOR for measuring what the router's frameworks cost by themselves: the router's
 * transport (a Vert.x HttpServer in front, keep-alive Netty connections to the upstream on the
 * same event loop, as the router's EngineConnection) with none of the router's work. Each
 * request's method, path and body go to the upstream unchanged; the answer's bytes come back
 * unchanged, gathered per upstream read and written once, as the router's SseOutput does. No
 * JSON, no validation, no routing, no metrics: what bench/router-overhead.sh measures for it is
 * the least a router built this way can cost per request, beside nginx and the router itself.
 * One instance per event loop, each with its own connections.
 */
public final class RelayFloorServer extends VerticleBase {

  private final String host;
  private final int port;
  private final int upstreamPort;
  private final ArrayDeque<RelayUpstream> idle = new ArrayDeque<>();
  private Bootstrap bootstrap;
  private HttpServer server;

  public RelayFloorServer(String host, int port, int upstreamPort) {
    this.host = host;
    this.port = port;
    this.upstreamPort = upstreamPort;
  }

  public int actualPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> start() {
    ContextInternal ctx = (ContextInternal) context;
    bootstrap = new Bootstrap().group(ctx.nettyEventLoop())
        .channelFactory(((VertxInternal) vertx).transport().channelFactory(false))
        .option(ChannelOption.TCP_NODELAY, true)
        .remoteAddress(new InetSocketAddress(host, upstreamPort))
        .handler(RelayUpstream.initializer(() -> idle));
    server = vertx.createHttpServer(HttpServers.options(host, port));
    return server.requestHandler(this::relay).listen();
  }

  private void relay(HttpServerRequest request) {
    request.body().onSuccess(body -> RelayUpstream.send(idle, bootstrap::connect, host,
        upstreamPort, request.method().name(), request.uri(), ((BufferInternal) body).getByteBuf(),
        new Exchange(request.response())));
  }

  /** One client request's answer: the upstream's bytes, gathered per read, written once. */
  private static final class Exchange implements RelayUpstream.Exchange {
    final HttpServerResponse response;
    ByteBuf pending;

    Exchange(HttpServerResponse response) {
      this.response = response;
    }

    @Override
    public void head(HttpResponse head) {
      response.setStatusCode(head.status().code());
      String type = head.headers().get("content-type");
      if (type != null) {
        response.putHeader("content-type", type);
      }
    }

    @Override
    public void content(ByteBuf data) {
      if (pending == null) {
        // pooled direct memory, as the router's SseOutput: the socket takes it as it is
        pending = ByteBufAllocator.DEFAULT.directBuffer(Math.max(4096, data.readableBytes()));
      }
      pending.writeBytes(data);
    }

    @Override
    public void readDone() {
      if (pending != null) {
        if (!response.headWritten()) {
          response.setChunked(true); // Vert.x refuses it once the head is out (from the second read)
        }
        ByteBuf out = pending;
        pending = null;
        response.write(BufferInternal.buffer(out)).onComplete(ar -> out.release());
      }
    }

    @Override
    public void end() {
      if (pending == null) {
        response.end();
        return;
      }
      ByteBuf out = pending;
      pending = null;
      response.end(BufferInternal.buffer(out)).onComplete(ar -> out.release());
    }

    @Override
    public void unreachable() {
      response.setStatusCode(502).end();
    }

    @Override
    public void broken() {
      if (pending != null) {
        pending.release();
        pending = null;
      }
      response.reset();
    }
  }
}
