package dev.tandem.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Deque;
import java.util.function.Supplier;

/**
 * The relay floors' side toward the upstream ({@link RelayFloorServer} on Vert.x,
 * {@link NettyRelayFloor} on Netty alone): a keep-alive connection carrying one exchange at a
 * time, kept in its event loop's idle list between exchanges, handing the answer's head, bytes,
 * read ends and end to the floor's {@link Exchange}.
 */
final class RelayUpstream extends ChannelInboundHandlerAdapter {

  /** What a floor does with one upstream answer, on the connection's event loop. */
  interface Exchange {
    void head(HttpResponse head);

    /** Bytes of the answer's body (the caller releases {@code data}). */
    void content(ByteBuf data);

    /** The end of an upstream read: what it brought goes out in one write. */
    void readDone();

    void end();

    /** No connection to the upstream: a 502. */
    void unreachable();

    /** The upstream broke off mid-answer: so does the answer. */
    void broken();
  }

  private final Deque<RelayUpstream> idle;
  private Channel channel;
  private Exchange exchange;
  private boolean keepAlive;

  private RelayUpstream(Deque<RelayUpstream> idle) {
    this.idle = idle;
  }

  /** A connection's pipeline: the response decoder and an upstream kept in {@code idle}'s list. */
  static ChannelInitializer<Channel> initializer(Supplier<Deque<RelayUpstream>> idle) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline().addLast(new HttpResponseDecoder(), new RelayUpstream(idle.get()));
      }
    };
  }

  /**
   * Sends one request, {@code body} as it is, over an idle connection or a new one from
   * {@code connect}; {@code body} is released once written (or the connection failed).
   */
  static void send(Deque<RelayUpstream> idle, Supplier<ChannelFuture> connect, String host,
      int port, String method, String uri, ByteBuf body, Exchange ex) {
    byte[] head = (method + " " + uri + " HTTP/1.1\r\nHost: " + host + ":" + port
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.readableBytes()
        + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    RelayUpstream up = idle.poll();
    if (up != null && up.channel.isActive()) {
      up.send(head, body, ex);
      return;
    }
    ChannelFuture connecting = connect.get();
    connecting.addListener(f -> {
      if (f.isSuccess()) {
        connecting.channel().pipeline().get(RelayUpstream.class).send(head, body, ex);
      } else {
        body.release();
        ex.unreachable();
      }
    });
  }

  private void send(byte[] head, ByteBuf body, Exchange ex) {
    exchange = ex;
    ByteBuf out = channel.alloc().directBuffer(head.length + body.readableBytes());
    out.writeBytes(head).writeBytes(body);
    body.release();
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
            idle.push(this);
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
    idle.remove(this);
    Exchange ex = exchange;
    exchange = null;
    if (ex != null) {
      ex.broken();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
