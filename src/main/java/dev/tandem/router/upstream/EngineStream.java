package dev.tandem.router.upstream;

import dev.tandem.api.SseParser;
import io.netty.buffer.ByteBuf;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * An engine's SSE answer, one parsed chunk at a time. Created paused; {@link #start} attaches the
 * chunk handler and lets data flow. {@link #pause()}/{@link #resume()} give the relay
 * back-pressure; the idle timer is off while paused, so a slow client is not taken for a hung
 * engine. The idle timer is not re-armed per chunk: it fires once per idle period and checks the
 * time of the last data, so a stream costs one timer per period instead of one per chunk.
 * {@link #end()} succeeds when the engine ends the response (true if it sent {@code [DONE]}) and
 * fails on a broken connection, a protocol error, a timeout or cancellation.
 */
public final class EngineStream {

  private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

  private final EngineConnection connection;
  private final CallGuard guard;
  private final int engineId;
  private final String stage;
  private final long firstChunkTimeoutMs;
  private final long idleTimeoutMs;
  private final Promise<Boolean> ended = Promise.promise();
  private final ChunkShape shape;
  private boolean sawDone;
  private boolean sawChunk;
  private boolean paused;
  private boolean idleArmed;
  private long lastDataNanos;
  private SseParser parser;
  private ChunkSink onChunk;

  EngineStream(EngineConnection connection, CallGuard guard, int engineId, String stage,
      long firstChunkTimeoutMs, long idleTimeoutMs) {
    this.connection = connection;
    this.guard = guard;
    this.engineId = engineId;
    this.stage = stage;
    this.firstChunkTimeoutMs = firstChunkTimeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    this.shape = connection.chunkShape();
    paused = true; // until start(): what the engine sends meanwhile waits in the connection
    connection.pause();
  }

  public int engineId() {
    return engineId;
  }

  /** Starts the flow of chunks into {@code chunkHandler}; an exception it throws fails the stream. */
  public void start(ChunkSink chunkHandler) {
    this.onChunk = chunkHandler;
    this.parser = new SseParser(this::onData, this::onEvent);
    paused = false;
    connection.resume();
  }

  /** Body bytes of the engine's answer (the connection holds them back while paused). */
  void data(ByteBuf buf) {
    if (guard.finished()) {
      return;
    }
    try {
      int length = buf.readableBytes();
      if (buf.hasArray()) {
        parser.feed(buf.array(), buf.arrayOffset() + buf.readerIndex(), length);
      } else {
        byte[] scratch = connection.scratch(length);
        buf.getBytes(buf.readerIndex(), scratch, 0, length);
        parser.feed(scratch, 0, length);
      }
    } catch (RuntimeException e) {
      guard.fail(e instanceof UpstreamException ? e
          : UpstreamException.protocol(engineId, stage, String.valueOf(e.getMessage())));
      return;
    }
    lastDataNanos = System.nanoTime();
    if (sawChunk && !paused && !idleArmed) {
      armIdle();
    }
  }

  /** The engine ended its answer. */
  void ended() {
    try {
      parser.finish();
    } catch (RuntimeException e) {
      guard.fail(UpstreamException.protocol(engineId, stage, String.valueOf(e.getMessage())), false);
      return;
    }
    if (!guard.finished()) {
      guard.done();
      ended.tryComplete(sawDone);
    }
  }

  private void onData(byte[] bytes, int offset, int length) {
    if (guard.finished()) {
      return;
    }
    if (isDone(bytes, offset, length)) {
      sawDone = true;
      return;
    }
    sawChunk = true;
    if (shape.tokenTo(bytes, offset, length, onChunk)) {
      return;
    }
    EngineChunk chunk;
    try {
      chunk = shape.scan(bytes, offset, length);
    } catch (IllegalArgumentException e) {
      String data = new String(bytes, offset, Math.min(length, 200), StandardCharsets.UTF_8);
      throw UpstreamException.protocol(engineId, stage, "a data line is not a valid chunk ("
          + e.getMessage() + "): " + (length > 200 ? data + "..." : data));
    }
    onChunk.accept(chunk);
  }

  /** A per-token event read whole by the chunk shape, before the parser scans it; or -1. */
  private int onEvent(byte[] bytes, int from, int end) {
    if (guard.finished()) {
      return -1;
    }
    int length = shape.eventTo(bytes, from, end, onChunk);
    if (length >= 0) {
      sawChunk = true;
    }
    return length;
  }

  /** {@code [DONE]}, surrounding white space allowed. */
  private static boolean isDone(byte[] bytes, int offset, int length) {
    int from = offset;
    int to = offset + length;
    while (from < to && bytes[from] <= ' ') {
      from++;
    }
    while (to > from && bytes[to - 1] <= ' ') {
      to--;
    }
    return Arrays.equals(bytes, from, to, DONE, 0, DONE.length);
  }

  /**
   * One timer per idle period, due an idle timeout after the last data: when it fires, it fails
   * the call only if no data came since, else it waits for the period after the last data.
   */
  private void armIdle() {
    idleArmed = true;
    guard.armTimer(idleTimeoutMs, lastDataNanos + TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs),
        () -> {
          idleArmed = false;
          if (paused) {
            return null;
          }
          if (System.nanoTime() - lastDataNanos >= TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs)) {
            return UpstreamException.timeout(engineId, stage + " (silence between chunks)",
                idleTimeoutMs);
          }
          armIdle();
          return null;
        });
  }

  public void pause() {
    if (!paused) {
      paused = true;
      idleArmed = false;
      guard.disarmTimer();
      connection.pause();
    }
  }

  public void resume() {
    if (paused) {
      paused = false;
      if (!guard.finished()) {
        if (sawChunk) {
          lastDataNanos = System.nanoTime();
          armIdle();
        } else {
          guard.armTimer(firstChunkTimeoutMs,
              () -> UpstreamException.timeout(engineId, stage + " (first chunk)", firstChunkTimeoutMs));
        }
      }
      connection.resume();
    }
  }

  /** Stops the stream: the request is reset and {@link #end()} fails with {@code cause}. */
  public void abort(Throwable cause) {
    guard.fail(cause);
  }

  /** Completes when the engine ended the response: true if {@code [DONE]} was seen. */
  public Future<Boolean> end() {
    return ended.future();
  }

  void fail(Throwable cause) {
    ended.tryFail(cause);
  }
}
