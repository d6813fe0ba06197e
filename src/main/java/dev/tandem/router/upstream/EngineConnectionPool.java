package dev.tandem.router.upstream;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The keep-alive connections to one engine origin on one event loop: idle ones reused last-in
 * first-out, at most {@code maxConnections} open (a live stream holds one), callers beyond that
 * wait in order. Connections are made on the context's own Netty event loop with Vert.x's
 * transport (epoll where it is loaded) and name resolver, so nothing blocks and no thread is
 * crossed. Used on its context only.
 */
final class EngineConnectionPool {

  private final ContextInternal context;
  private final Bootstrap bootstrap;
  private final String host;
  private final int port;
  private final String hostHeader;
  private final int maxConnections;
  private final ArrayDeque<EngineConnection> idle = new ArrayDeque<>();
  private final ArrayDeque<Promise<EngineConnection>> waiters = new ArrayDeque<>();
  private final ArrayList<Channel> channels = new ArrayList<>();
  private final Map<String, byte[]> heads = new HashMap<>();
  private String headsSecret;
  private int open;
  private boolean closed;

  /** @param tls null for http, else the client context for https (the host name is verified) */
  EngineConnectionPool(VertxInternal vertx, ContextInternal context, String host, int port,
      SslContext tls, int connectTimeoutMs, int maxConnections) {
    this.context = context;
    this.host = host;
    this.port = port;
    this.hostHeader = host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    this.maxConnections = maxConnections;
    EngineConnectionPool pool = this;
    this.bootstrap = new Bootstrap().group(context.nettyEventLoop())
        .channelFactory(vertx.transport().channelFactory(false))
        .resolver(vertx.nameResolver().nettyAddressResolverGroup())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if (tls != null) {
              ch.pipeline().addLast(verifying(tls.newHandler(ch.alloc(), host, port)));
            }
            ch.pipeline().addLast(new HttpResponseDecoder(), new EngineConnection(pool, context));
          }
        });
  }

  private static SslHandler verifying(SslHandler handler) {
    SSLEngine engine = handler.engine();
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
    return handler;
  }

  ContextInternal context() {
    return context;
  }

  boolean onItsLoop() {
    return context.nettyEventLoop().inEventLoop();
  }

  /** A connection with no exchange on it: an idle one, a new one, or the next one freed. */
  Future<EngineConnection> acquire() {
    if (closed) {
      return Future.failedFuture(new IllegalStateException("the engine client is closed"));
    }
    EngineConnection c;
    while ((c = idle.pollLast()) != null) {
      if (c.usable()) {
        return Future.succeededFuture(c);
      }
    }
    Promise<EngineConnection> promise = Promise.promise();
    if (open < maxConnections) {
      connect(promise);
    } else {
      waiters.add(promise);
    }
    return promise.future();
  }

  private void connect(Promise<EngineConnection> promise) {
    open++;
    ChannelFuture connecting = bootstrap.connect(InetSocketAddress.createUnresolved(host, port));
    connecting.addListener(f -> context.emit(v -> {
      if (!f.isSuccess()) {
        open--;
        promise.fail(f.cause());
        connectForWaiter();
        return;
      }
      Channel channel = connecting.channel();
      channels.add(channel);
      if (closed) {
        channel.close();
        promise.fail(new IllegalStateException("the engine client is closed"));
        return;
      }
      promise.complete(channel.pipeline().get(EngineConnection.class));
    }));
  }

  private void connectForWaiter() {
    if (!waiters.isEmpty() && open < maxConnections && !closed) {
      connect(waiters.poll());
    }
  }

  /** The exchange on {@code c} ended cleanly: the next waiter gets it, or it idles. */
  void release(EngineConnection c) {
    Promise<EngineConnection> next = waiters.poll();
    if (next != null) {
      next.complete(c);
    } else {
      idle.addLast(c);
    }
  }

  /** {@code c}'s channel closed (on the event loop; its exchange, if any, is told separately). */
  void closed(EngineConnection c) {
    context.emit(v -> {
      idle.remove(c);
      channels.removeIf(ch -> !ch.isOpen());
      open--;
      connectForWaiter();
    });
  }

  /**
   * The request's head up to and including {@code Content-Length: }, per path (the same few paths
   * every time), so a request costs one small copy instead of a header map and its encoding.
   */
  byte[] head(String path, String secretHeader, String secret) {
    if (!java.util.Objects.equals(secret, headsSecret)) {
      heads.clear();
      headsSecret = secret;
    }
    return heads.computeIfAbsent(path, p -> ("POST " + p + " HTTP/1.1\r\nHost: " + hostHeader
        + "\r\nContent-Type: application/json\r\n"
        + (secret == null ? "" : secretHeader + ": " + secret + "\r\n")
        + "Content-Length: ").getBytes(StandardCharsets.ISO_8859_1));
  }

  Future<Void> close() {
    closed = true;
    Promise<Void> done = Promise.promise();
    context.emit(v -> {
      for (Promise<EngineConnection> w; (w = waiters.poll()) != null; ) {
        w.tryFail(new IllegalStateException("the engine client is closed"));
      }
      new ArrayList<>(channels).forEach(Channel::close);
      done.complete();
    });
    return done.future();
  }
}
