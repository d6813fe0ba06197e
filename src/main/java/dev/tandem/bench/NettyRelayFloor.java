package dev.tandem.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.spi.transport.Transport;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * A RELAY FLOOR without Vert.x, for measuring what Vert.x's HttpServer costs beside Netty alone:
 * the same relay as {@link RelayFloorServer} (method, path and body to the upstream unchanged over
 * keep-alive connections on the client's event loop; the answer's bytes back unchanged, gathered
 * per upstream read and written once; a whole answer in one read goes out as one response of
 * known length) on a bare Netty pipeline: {@code HttpServerCodec} in front, one handler, no
 * request or response objects of a framework. bench/router-overhead.sh runs it as setup
 * "nettyfloor" beside the Vert.x floor, so the two framework floors stand side by side.
 */
public final class NettyRelayFloor {

  private final String host;
  private final int port;
  private final int upstreamPort;
  private final EventLoopGroup group;
  private final Transport transport;
  private Channel server;
  /** Each event loop's idle upstream connections. */
  private final FastThreadLocal<ArrayDeque<RelayUpstream>> idle = new FastThreadLocal<>() {
    @Override
    protected ArrayDeque<RelayUpstream> initialValue() {
      return new ArrayDeque<>();
    }
  };

  /**
   * @param vertx only for its Netty event loops and transport (native where it loads, as the
   *     router's): none of Vert.x's servers or contexts is used
   */
  public NettyRelayFloor(VertxInternal vertx, String host, int port, int upstreamPort) {
    this.host = host;
    this.port = port;
    this.upstreamPort = upstreamPort;
    this.group = vertx.nettyEventLoopGroup();
    this.transport = vertx.transport();
  }

  /** Binds the server (blocking until it is bound: call it off the event loops). */
  public NettyRelayFloor start() throws InterruptedException {
    server = new ServerBootstrap().group(group)
        .channelFactory(transport.serverChannelFactory(false))
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), new Client());
          }
        })
        .bind(host, port).sync().channel();
    return this;
  }

  public int actualPort() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** One client connection: its requests, one at a time (HTTP/1.1 without pipelining). */
  private final class Client extends ChannelInboundHandlerAdapter {
    private String method;
    private String uri;
    private boolean keepAlive;
    private ByteBuf body;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof HttpRequest request) {
          method = request.method().name();
          uri = request.uri();
          keepAlive = HttpUtil.isKeepAlive(request);
          body = ctx.alloc().directBuffer(512);
        }
        if (msg instanceof HttpContent content && body != null) {
          body.writeBytes(content.content());
          if (msg instanceof LastHttpContent) {
            ByteBuf whole = body;
            body = null;
            relay(ctx.channel(), new Exchange(ctx.channel(), keepAlive), whole);
          }
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    private void relay(Channel client, Exchange exchange, ByteBuf whole) {
      RelayUpstream.send(idle.get(), () -> new Bootstrap().group(client.eventLoop())
              .channelFactory(transport.channelFactory(false))
              .option(ChannelOption.TCP_NODELAY, true)
              .handler(RelayUpstream.initializer(idle::get))
              .connect(new InetSocketAddress(host, upstreamPort)),
          host, upstreamPort, method, uri, whole, exchange);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (body != null) {
        body.release();
        body = null;
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** One client request's answer: the upstream's bytes, gathered per read, written once. */
  private static final class Exchange implements RelayUpstream.Exchange {
    final Channel client;
    final boolean keepAlive;
    HttpResponseStatus status;
    String contentType;
    ByteBuf pending;
    boolean headWritten;

    Exchange(Channel client, boolean keepAlive) {
      this.client = client;
      this.keepAlive = keepAlive;
    }

    @Override
    public void head(HttpResponse head) {
      status = head.status();
      contentType = head.headers().get(HttpHeaderNames.CONTENT_TYPE);
    }

    @Override
    public void content(ByteBuf data) {
      if (pending == null) {
        pending = client.alloc().directBuffer(Math.max(8192, data.readableBytes()));
      }
      pending.writeBytes(data);
    }

    /** What the read brought goes out in one write (chunked from here). */
    @Override
    public void readDone() {
      if (pending == null) {
        return;
      }
      if (!headWritten) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
        head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        headers(head);
        client.write(head, client.voidPromise());
        headWritten = true;
      }
      client.writeAndFlush(new DefaultHttpContent(pending), client.voidPromise());
      pending = null;
    }

    @Override
    public void end() {
      ChannelFuture written;
      if (!headWritten) {
        ByteBuf content = pending != null ? pending : client.alloc().buffer(0);
        DefaultFullHttpResponse whole = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
            content);
        whole.headers().set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        headers(whole);
        written = client.writeAndFlush(whole);
      } else {
        if (pending != null) {
          client.write(new DefaultHttpContent(pending), client.voidPromise());
        }
        written = client.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      }
      pending = null;
      if (!keepAlive) {
        written.addListener(ChannelFutureListener.CLOSE);
      }
    }

    private void headers(HttpResponse head) {
      if (contentType != null) {
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
      }
      if (!keepAlive) {
        head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
    }

    @Override
    public void unreachable() {
      client.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
          HttpResponseStatus.BAD_GATEWAY)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void broken() {
      if (pending != null) {
        pending.release();
        pending = null;
      }
      client.close();
    }
  }
}
