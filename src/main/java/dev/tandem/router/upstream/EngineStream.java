package dev.tandem.router.upstream;

import dev.tandem.api.SseParser;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.function.Consumer;

/**
 * An engine's SSE answer, one JSON chunk at a time. Created paused; {@link #start} attaches the
 * chunk handler and lets data flow. {@link #pause()}/{@link #resume()} give the relay
 * back-pressure; the idle timer is off while paused, so a slow client is not taken for a hung
 * engine. {@link #end()} succeeds when the engine ends the response (true if it sent
 * {@code [DONE]}) and fails on a broken connection, a protocol error, a timeout or cancellation.
 */
public final class EngineStream {

  private final HttpClientResponse response;
  private final CallGuard guard;
  private final int engineId;
  private final String stage;
  private final long firstChunkTimeoutMs;
  private final long idleTimeoutMs;
  private final Promise<Boolean> ended = Promise.promise();
  private boolean sawDone;
  private boolean sawChunk;
  private boolean paused;

  EngineStream(HttpClientResponse response, CallGuard guard, int engineId, String stage,
      long firstChunkTimeoutMs, long idleTimeoutMs) {
    this.response = response;
    this.guard = guard;
    this.engineId = engineId;
    this.stage = stage;
    this.firstChunkTimeoutMs = firstChunkTimeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    response.pause();
  }

  public int engineId() {
    return engineId;
  }

  /** Starts the flow of chunks into {@code onChunk}; an exception it throws fails the stream. */
  public void start(Consumer<JsonObject> onChunk) {
    SseParser parser = new SseParser(data -> onData(data, onChunk));
    response.handler(buf -> {
      if (guard.finished()) {
        return;
      }
      try {
        parser.feed(buf);
      } catch (RuntimeException e) {
        guard.fail(e instanceof UpstreamException ? e
            : UpstreamException.protocol(engineId, stage, String.valueOf(e.getMessage())));
        return;
      }
      if (sawChunk && !paused) {
        armIdle();
      }
    });
    response.exceptionHandler(e -> guard.fail(
        UpstreamException.broken(engineId, stage, String.valueOf(e.getMessage()))));
    response.endHandler(v -> {
      try {
        parser.finish();
      } catch (RuntimeException e) {
        guard.fail(UpstreamException.protocol(engineId, stage, String.valueOf(e.getMessage())));
        return;
      }
      if (!guard.finished()) {
        guard.done();
        ended.tryComplete(sawDone);
      }
    });
    response.resume();
  }

  private void onData(String data, Consumer<JsonObject> onChunk) {
    if (guard.finished()) {
      return;
    }
    if (data.strip().equals("[DONE]")) {
      sawDone = true;
      return;
    }
    JsonObject chunk;
    try {
      chunk = new JsonObject(data);
    } catch (DecodeException e) {
      throw UpstreamException.protocol(engineId, stage, "a data line is not a JSON object: "
          + (data.length() > 200 ? data.substring(0, 200) + "..." : data));
    }
    sawChunk = true;
    onChunk.accept(chunk);
  }

  private void armIdle() {
    guard.armTimer(idleTimeoutMs,
        () -> UpstreamException.timeout(engineId, stage + " (silence between chunks)", idleTimeoutMs));
  }

  public void pause() {
    if (!paused) {
      paused = true;
      guard.disarmTimer();
      response.pause();
    }
  }

  public void resume() {
    if (paused) {
      paused = false;
      if (!guard.finished()) {
        if (sawChunk) {
          armIdle();
        } else {
          guard.armTimer(firstChunkTimeoutMs,
              () -> UpstreamException.timeout(engineId, stage + " (first chunk)", firstChunkTimeoutMs));
        }
      }
      response.resume();
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
