package dev.tandem.router.api;

import dev.tandem.api.SseWriter;
import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * A streaming HTTP answer through the shared {@link SseWriter}. Deltas are rendered straight into
 * one pending buffer ({@link ClientChunk#appendSse}) and written together once the event loop has
 * handled what it read — so every delta decoded from one engine read goes out in one write and one
 * flush, not one per chunk. The pending buffer is direct memory from Netty's pool: the socket
 * write takes it as it is (a heap buffer is zeroed when made and copied to direct memory when
 * written), and it goes back to the pool once written or dropped. The usage chunk (if asked
 * for) and {@code [DONE]} end the stream in the same write as whatever is still pending: when the
 * engine's whole answer arrived in one read, the client's whole answer is one write (a response
 * of known length). A failure after the first chunk is an error event without {@code [DONE]},
 * after the pending deltas.
 */
final class SseOutput implements ClientOutput {

  /** Pending bytes beyond which they are written at once rather than after the read. */
  private static final int MAX_PENDING = 64 * 1024;
  /** How much room a pending buffer starts with: what the router's streams write in one go. */
  private static final PendingSize PENDING_SIZE = new PendingSize();

  private final ByteBufAllocator pool;
  private final SseWriter sse;
  private final boolean includeUsage;
  private final Context context;
  private final Handler<Void> flushTask = v -> flush();
  /** The pending deltas: a pooled direct buffer ({@link #pendingBuf}) owned until written. */
  private Buffer pending;
  private ByteBuf pendingBuf;
  private boolean flushScheduled;
  /**
   * Whether the response's write queue was full after the last write: only a write can fill it,
   * so the relay's check after every engine chunk asks the response (a lock) only while it is.
   */
  private boolean full;

  SseOutput(HttpServerResponse response, boolean includeUsage) {
    this(response, includeUsage, PooledByteBufAllocator.DEFAULT);
  }

  /** @param pool where pending buffers come from (a test counts what it gets back) */
  SseOutput(HttpServerResponse response, boolean includeUsage, ByteBufAllocator pool) {
    this.pool = pool;
    this.sse = new SseWriter(response);
    this.includeUsage = includeUsage;
    this.context = Vertx.currentContext();
  }

  @Override
  public void write(ClientChunk chunk) {
    chunk.appendSse(pending());
    if (pending.length() >= MAX_PENDING || context == null) {
      flush();
    } else if (!flushScheduled) {
      flushScheduled = true;
      context.runOnContext(flushTask);
    }
  }

  /** The pending buffer, taken from the pool when there is none. */
  private Buffer pending() {
    if (pending == null) {
      pendingBuf = pool.directBuffer(PENDING_SIZE.next());
      pending = BufferInternal.buffer(pendingBuf);
    }
    return pending;
  }

  /** Writes what is pending (one write, one flush). */
  private void flush() {
    flushScheduled = false;
    Buffer out = pending;
    ByteBuf buf = pendingBuf;
    pending = null;
    pendingBuf = null;
    if (out == null) {
      return;
    }
    if (out.length() == 0) {
      buf.release();
      return;
    }
    PENDING_SIZE.wrote(out.length());
    // dropped if the stream ended or the client is gone; the bytes go back to the pool either way
    sse.writeFramed(out).onComplete(ar -> buf.release());
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
      end.appendSse(pending()); // the usage chunk, after the last deltas
    }
    Buffer out = pending;
    ByteBuf buf = pendingBuf;
    pending = null;
    pendingBuf = null;
    Future<Void> written = sse.end(out, null);
    if (out != null) {
      PENDING_SIZE.wrote(out.length()); // the usage chunk and [DONE] were appended to it
      written.onComplete(ar -> buf.release());
    }
  }

  @Override
  public void fail(Throwable error) {
    flush();
    sse.fail(error);
  }
}
