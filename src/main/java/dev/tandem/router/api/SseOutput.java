package dev.tandem.router.api;

import dev.tandem.api.SseWriter;
import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.upstream.EngineReads;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * A streaming HTTP answer through the shared {@link SseWriter}. Deltas are rendered straight into
 * the event loop's pending bytes ({@link LoopPending}, a heap writer: {@link ClientChunk#appendSse})
 * and written together at the end of the engine read that brought them ({@link EngineReads}), or,
 * written outside one, once the event loop has handled what it was doing (a task) — so every
 * delta decoded from one engine read goes out in one write and one flush, not one per chunk. A write copies
 * them once into direct memory from Netty's default pool (the one its channels use: on Netty 4.2
 * the adaptive allocator, whose thread-local magazines cost less per buffer than the classic
 * pooled allocator's shared pinned-memory counter), which the socket takes as it is and which
 * goes back to the pool once written or dropped. The usage chunk (if asked for) and {@code [DONE]} end
 * the stream in the same write as whatever is still pending: when the engine's whole answer
 * arrived in one read, the client's whole answer is one write (a response of known length). A
 * failure after the first chunk is an error event without {@code [DONE]}, after the pending
 * deltas.
 */
final class SseOutput implements ClientOutput {

  /** Pending bytes beyond which they are written at once rather than after the read. */
  private static final int MAX_PENDING = 64 * 1024;
  private static final int DONE_ROOM = 16;

  private final ByteBufAllocator pool;
  private final SseWriter sse;
  private final boolean includeUsage;
  private final Context context;
  private final Runnable flushLater = this::flush;
  private final Handler<Void> flushTask = v -> flush();
  private boolean flushScheduled;
  /**
   * Whether the response's write queue was full after the last write: only a write can fill it,
   * so the relay's check after every engine chunk asks the response (a lock) only while it is.
   */
  private boolean full;

  SseOutput(HttpServerResponse response, boolean includeUsage) {
    this(response, includeUsage, ByteBufAllocator.DEFAULT);
  }

  /** @param pool where the buffers written come from (a test counts what it gets back) */
  SseOutput(HttpServerResponse response, boolean includeUsage, ByteBufAllocator pool) {
    this.pool = pool;
    this.sse = new SseWriter(response);
    this.includeUsage = includeUsage;
    this.context = Vertx.currentContext();
  }

  @Override
  public void write(ClientChunk chunk) {
    LoopPending pending = take();
    chunk.appendSse(pending.bytes);
    if (pending.bytes.length() >= MAX_PENDING || context == null) {
      flush();
    } else if (!flushScheduled) {
      flushScheduled = true;
      if (!EngineReads.afterThisRead(flushLater)) {
        context.runOnContext(flushTask);
      }
    }
  }

  /** The loop's pending bytes, made this output's: another output's go out first. */
  private LoopPending take() {
    LoopPending pending = LoopPending.ofThisThread();
    SseOutput other = pending.owner;
    if (other != this) {
      if (other != null) {
        other.flush();
      }
      pending.owner = this;
    }
    return pending;
  }

  /**
   * This output's pending bytes (none when another output owns the loop's) in a pooled direct
   * buffer with {@code room} to spare, the loop's writer emptied; null when there are none. The
   * buffer is the caller's to release (Vert.x's view of it cannot release it).
   */
  private ByteBuf drain(int room) {
    LoopPending pending = LoopPending.ofThisThread();
    if (pending.owner != this) {
      return null;
    }
    int length = pending.bytes.length();
    if (length == 0) {
      pending.clear();
      return null;
    }
    ByteBuf out = pool.directBuffer(length + room);
    pending.bytes.appendTo(BufferInternal.buffer(out));
    pending.clear();
    return out;
  }

  /** Writes what is pending (one write, one flush). */
  private void flush() {
    flushScheduled = false;
    ByteBuf out = drain(0);
    if (out == null) {
      return;
    }
    // dropped if the stream ended or the client is gone; the bytes go back to the pool either way
    sse.writeFramed(BufferInternal.buffer(out)).onComplete(ar -> out.release());
    full = sse.writeQueueFull();
  }

  @Override
  public boolean writeQueueFull() {
    if (full) {
      full = sse.writeQueueFull();
    }
    return full;
  }

  @Override
  public void drainHandler(Handler<Void> handler) {
    sse.drainHandler(handler);
  }

  @Override
  public void complete(AnswerEnd end) {
    if (includeUsage && !sse.ended()) {
      end.appendSse(take().bytes); // the usage chunk, after the last deltas
    }
    ByteBuf out = drain(DONE_ROOM); // [DONE] is appended to it
    Future<Void> written = sse.end(out == null ? null : BufferInternal.buffer(out), null);
    if (out != null) {
      written.onComplete(ar -> out.release());
    }
  }

  @Override
  public void fail(Throwable error) {
    flush();
    sse.fail(error);
  }
}
