package dev.tandem.router.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.Handler;
import io.vertx.core.internal.ContextInternal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * One keep-alive HTTP/1.1 connection to an engine, the last handler of its Netty pipeline (after
 * the response decoder). It carries one {@link Exchange} at a time: the request's bytes go out in
 * one write, the decoded response comes back to the exchange on the router's context, and at the
 * response's end the connection goes back to its {@link EngineConnectionPool} (or is closed, when
 * the engine said {@code Connection: close}). {@link #pause()} stops reading from the socket (the
 * relay's back-pressure); what was already decoded waits here until {@link #resume()}.
 * {@link #reset(Exchange)} closes the connection, which is how an engine learns that nobody waits
 * for its answer. This replaces Vert.x's HttpClient on the request path: its pool, request and
 * response objects and futures were most of the router's CPU per request (BENCHMARKS.md).
 */
final class EngineConnection extends ChannelInboundHandlerAdapter {

  /** What one request gets back, always on the router's context. */
  interface Exchange {
    /** The response's status line and headers. */
    void head(HttpResponse response);

    /** Body bytes, valid only during the call. */
    void content(ByteBuf data);

    /** The response ended. */
    void end();

    /** The connection failed or closed before the response ended. */
    void broken(Throwable cause, boolean answered);
  }

  private static final int CRLF_CRLF = ('\r' << 24) | ('\n' << 16) | ('\r' << 8) | '\n';

  private final EngineConnectionPool pool;
  private final ContextInternal context;
  private Channel channel;
  private Exchange exchange;
  private boolean answered;
  private boolean keepAlive;
  private boolean paused;
  private boolean reading = true;
  private Throwable failure;
  private final ArrayDeque<HttpObject> held = new ArrayDeque<>();
  private final Handler<HttpObject> deliverer = this::deliver;
  /**
   * A socket read is being delivered: from its first message to Netty's end of the read, all its
   * messages are delivered in one dispatch on the router's context.
   */
  private boolean inRead;
  /** The context the thread was on before this read's dispatch began. */
  private ContextInternal beforeRead;
  /** What waits for the end of this read ({@link EngineReads#afterThisRead}). */
  private final ArrayList<Runnable> afterRead = new ArrayList<>(2);
  /** Heap room for a stream's reads of direct memory, kept across the connection's requests. */
  private byte[] scratch = new byte[0];
  /** The chunk reader of the streams this connection carries, one after another. */
  private ChunkShape shape;

  EngineConnection(EngineConnectionPool pool, ContextInternal context) {
    this.pool = pool;
    this.context = context;
  }

  /**
   * A chunk reader for the stream this connection now carries, having learned nothing: the last
   * stream's, whose room for a chunk's bytes stays (a connection carries one stream at a time).
   */
  ChunkShape chunkShape() {
    if (shape == null) {
      shape = new ChunkShape();
    } else {
      shape.forget();
    }
    return shape;
  }

  /** At least {@code length} bytes of scratch room, valid until the next call. */
  byte[] scratch(int length) {
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, 2 * scratch.length)];
    }
    return scratch;
  }

  boolean usable() {
    return channel != null && channel.isActive() && exchange == null;
  }

  /**
   * Writes the whole request in one buffer (the {@code head} up to {@code Content-Length: }, the
   * length, a blank line, {@code body}) and binds its answer to {@code ex}.
   */
  void send(byte[] head, ByteBuf body, Exchange ex) {
    answered = false;
    keepAlive = true;
    if (!channel.isActive()) {
      // closed between being handed out and now: its close was already told to nobody
      context.emit(v -> ex.broken(new IOException("the engine closed the connection"), false));
      return;
    }
    exchange = ex;
    int length = body.readableBytes();
    byte[] digits = Integer.toString(length).getBytes(StandardCharsets.ISO_8859_1);
    ByteBuf out = channel.alloc().directBuffer(head.length + digits.length + 4 + length);
    out.writeBytes(head).writeBytes(digits).writeInt(CRLF_CRLF)
        .writeBytes(body, body.readerIndex(), length);
    channel.writeAndFlush(out, channel.voidPromise());
  }

  /** Closes the connection if it still carries {@code ex}: the engine aborts the request. */
  void reset(Exchange ex) {
    if (exchange == ex && ex != null) {
      exchange = null;
      channel.close();
    }
  }

  /**
   * Holds what is decoded from now on; the socket stops being read once something arrives while
   * paused (not at once: a stream is paused and resumed around its start, and each change of the
   * channel's reading is a system call).
   */
  void pause() {
    paused = true;
  }

  void resume() {
    if (!paused) {
      return;
    }
    paused = false;
    if (!held.isEmpty()) {
      // delivered as one read: what waits for its end runs after the last held message
      ArrayList<Runnable> afterResume = new ArrayList<>(2);
      EngineReads reads = EngineReads.ofThisThread();
      ArrayList<Runnable> outer = reads.enter(afterResume);
      try {
        while (!paused && !held.isEmpty()) {
          deliver(held.poll());
        }
      } finally {
        reads.exit(outer);
      }
      EngineReads.runAll(afterResume);
    }
    if (!paused && channel.isActive()) {
      startReading();
    }
  }

  private void startReading() {
    if (!reading) {
      reading = true;
      channel.config().setAutoRead(true);
    }
  }

  private void stopReading() {
    if (reading) {
      reading = false;
      channel.config().setAutoRead(false);
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel(); // before the connect completes: the first request may go out at once
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof HttpObject object)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (paused) {
      held.add(object);
      stopReading();
      return;
    }
    if (!context.executor().inThread()) {
      context.emit(object, deliverer); // not the context's own loop: emit hands it over
      return;
    }
    if (!inRead) {
      // one dispatch for everything this socket read brings (Vert.x's emit per message began and
      // ended one each time), ended in channelReadComplete
      beforeRead = context.beginDispatch();
      inRead = true;
    }
    EngineReads reads = EngineReads.ofThisThread();
    ArrayList<Runnable> outer = reads.enter(afterRead);
    try {
      deliver(object);
    } catch (Throwable t) {
      context.reportException(t); // as emit does: the next message is still delivered
    } finally {
      reads.exit(outer);
    }
  }

  /** Netty's end of a socket read: what waited for it runs, and the read's dispatch ends. */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    endRead();
  }

  private void endRead() {
    if (!inRead) {
      return;
    }
    inRead = false;
    try {
      EngineReads.runAll(afterRead);
    } catch (Throwable t) {
      context.reportException(t);
    } finally {
      ContextInternal before = beforeRead;
      beforeRead = null;
      context.endDispatch(before);
    }
  }

  private void deliver(HttpObject msg) {
    try {
      Exchange ex = exchange;
      if (msg.decoderResult().isFailure()) {
        fail(new IOException("the engine's answer is not HTTP/1.1: " + msg.decoderResult().cause()));
        return;
      }
      if (ex == null) {
        channel.close(); // an answer nobody asked for: the connection is no good
        return;
      }
      if (msg instanceof HttpResponse response) {
        answered = true;
        keepAlive = HttpUtil.isKeepAlive(response);
        ex.head(response);
      }
      if (msg instanceof HttpContent content && exchange == ex) {
        if (content.content().isReadable()) {
          ex.content(content.content());
        }
        if (msg instanceof LastHttpContent && paused && exchange == ex) {
          held.addFirst(LastHttpContent.EMPTY_LAST_CONTENT); // the end waits for resume() too
          return;
        }
        if (msg instanceof LastHttpContent && exchange == ex) {
          // Free (or close) the connection first: what the end leads to may reuse it.
          exchange = null;
          if (keepAlive && channel.isActive()) {
            paused = false;
            startReading();
            pool.release(this);
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

  private void fail(Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
    channel.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    fail(cause);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    endRead(); // a read cut short by the close: what waited for its end runs now
    HttpObject h;
    while ((h = held.poll()) != null) {
      ReferenceCountUtil.release(h);
    }
    Exchange ex = exchange;
    exchange = null;
    pool.closed(this);
    if (ex != null) {
      Throwable cause = failure != null ? failure : new IOException("the engine closed the connection");
      boolean wasAnswered = answered;
      context.emit(v -> ex.broken(cause, wasAnswered));
    }
  }
}
