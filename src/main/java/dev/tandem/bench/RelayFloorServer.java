package dev.tandem.bench;

import dev.tandem.api.HttpServers;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.buffer.BufferInternal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
  private final ArrayDeque<Upstream> idle = new ArrayDeque<>();
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
    RelayFloorServer floor = this;
    bootstrap = new Bootstrap().group(ctx.nettyEventLoop())
        .channelFactory(((VertxInternal) vertx).transport().channelFactory(false))
        .option(ChannelOption.TCP_NODELAY, true)
        .remoteAddress(new InetSocketAddress(host, upstreamPort))
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpResponseDecoder(), new Upstream(floor));
          }
        });
    server = vertx.createHttpServer(HttpServers.options(host, port));
    return server.requestHandler(this::relay).listen();
  }

  private void relay(HttpServerRequest request) {
    request.body().onSuccess(body -> {
      byte[] head = (request.method().name() + " " + request.uri() + " HTTP/1.1\r\nHost: " + host
          + ":" + upstreamPort + "\r\nContent-Type: application/json\r\nContent-Length: "
          + body.length() + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
      Exchange exchange = new Exchange(request.response());
      Upstream up = idle.poll();
      if (up != null && up.channel.isActive()) {
        up.send(head, body, exchange);
        return;
      }
      ChannelFuture connecting = bootstrap.connect();
      connecting.addListener(f -> {
        if (f.isSuccess()) {
          connecting.channel().pipeline().get(Upstream.class).send(head, body, exchange);
        } else {
          exchange.response.setStatusCode(502).end();
        }
      });
    });
  }

  /** One client request's answer: the upstream's bytes, gathered per read, written once. */
  private static final class Exchange {
    final HttpServerResponse response;
    ByteBuf pending;

    Exchange(HttpServerResponse response) {
      this.response = response;
    }

    void head(HttpResponse head) {
      response.setStatusCode(head.status().code());
      String type = head.headers().get("content-type");
      if (type != null) {
        response.putHeader("content-type", type);
      }
    }

    void content(ByteBuf data) {
      if (pending == null) {
        pending = Unpooled.buffer(8192);
      }
      pending.writeBytes(data);
    }

    /** The end of an upstream read: what it brought goes out in one write. */
    void readDone() {
      if (pending != null) {
        if (!response.headWritten()) {
          response.setChunked(true); // Vert.x refuses it once the head is out (from the second read)
        }
        response.write(BufferInternal.buffer(pending));
        pending = null;
      }
    }

    void end() {
      response.end(pending == null ? Buffer.buffer() : BufferInternal.buffer(pending));
      pending = null;
    }
  }

  /** A keep-alive connection to the upstream, carrying one exchange at a time. */
  private static final class Upstream extends ChannelInboundHandlerAdapter {
    final RelayFloorServer floor;
    Channel channel;
    Exchange exchange;
    boolean keepAlive;

    Upstream(RelayFloorServer floor) {
      this.floor = floor;
    }

    void send(byte[] head, Buffer body, Exchange ex) {
      exchange = ex;
      ByteBuf out = channel.alloc().directBuffer(head.length + body.length());
      out.writeBytes(head).writeBytes(((BufferInternal) body).getByteBuf());
      channel.writeAndFlush(out, channel.voidPromise());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      channel = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        Exchange ex = exchange;
        if (ex == null) {
          channel.close();
          return;
        }
        if (msg instanceof HttpResponse head) {
          keepAlive = HttpUtil.isKeepAlive(head);
          ex.head(head);
        }
        if (msg instanceof HttpContent content) {
          if (content.content().isReadable()) {
            ex.content(content.content());
          }
          if (msg instanceof LastHttpContent) {
            exchange = null;
            if (keepAlive) {
              floor.idle.push(this);
            } else {
              channel.close();
            }
            ex.end();
          }
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (exchange != null) {
        exchange.readDone();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      floor.idle.remove(this);
      Exchange ex = exchange;
      exchange = null;
      if (ex != null) {
        ex.response.reset(); // the upstream broke off: so does the answer
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
