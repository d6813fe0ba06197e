package dev.tandem.fleet;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import java.util.Locale;
import java.util.function.Function;

/**
 * Waits for a freshly started engine process: polls its readiness path every {@value #POLL_MS} ms
 * until it answers 200 (MLC's readiness probe), and fails with a message naming the engine, its
 * log and its last output lines when the process exits first or the startup timeout passes.
 */
final class ReadinessWait {
  static final long POLL_MS = 100;

  private final Vertx vertx;
  private final Function<String, Future<HttpResponse<Buffer>>> get;
  private final String path;
  private final Promise<Void> ready = Promise.promise();

  private ReadinessWait(Vertx vertx, Function<String, Future<HttpResponse<Buffer>>> get,
      String path) {
    this.vertx = vertx;
    this.get = get;
    this.path = path;
  }

  /**
   * Starts waiting for {@code started}; {@code get} sends one GET to the engine. Runs on
   * {@code context} (the EngineVerticle's).
   */
  static ReadinessWait start(Vertx vertx, Context context, EngineSpec spec, ChildProcess started,
      Function<String, Future<HttpResponse<Buffer>>> get) {
    ReadinessWait wait = new ReadinessWait(vertx, get, spec.readinessPath());
    long deadline = vertx.setTimer(spec.startupTimeout().toMillis(), id -> wait.ready.tryFail(
        new EngineStartException(spec.describe() + " was not ready after "
            + String.format(Locale.ROOT, "%.1f", spec.startupTimeout().toMillis() / 1000.0)
            + " s (GET " + spec.readinessPath() + " never answered 200; log " + started.logFile()
            + "); last lines:\n" + started.tailText())));
    Future.fromCompletionStage(started.onExit(), context).onSuccess(code -> wait.ready.tryFail(
        new EngineStartException(spec.describe() + " exited with code " + code
            + " before it was ready (log " + started.logFile() + "); last lines:\n"
            + started.tailText(), code)));
    wait.ready.future().onComplete(ar -> vertx.cancelTimer(deadline));
    wait.poll();
    return wait;
  }

  Future<Void> future() {
    return ready.future();
  }

  /** Ends the wait now with {@code failure} (the engine is being stopped). */
  void cancel(Throwable failure) {
    ready.tryFail(failure);
  }

  private void poll() {
    if (ready.future().isComplete()) {
      return;
    }
    get.apply(path).onComplete(ar -> {
      if (ready.future().isComplete()) {
        return;
      }
      if (ar.succeeded() && ar.result().statusCode() == 200) {
        ready.tryComplete();
      } else {
        vertx.setTimer(POLL_MS, id -> poll());
      }
    });
  }
}
