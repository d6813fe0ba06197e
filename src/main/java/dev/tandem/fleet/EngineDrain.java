package dev.tandem.fleet;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;

/**
 * Waits until an engine out of rotation has finished its requests (running and waiting both 0 in
 * its {@code /debug/dump_engine_metrics}), or a deadline passes; never fails. An engine that does
 * not report those gauges (MLC) is not waited for: what it still runs fails over.
 */
final class EngineDrain {
  private static final long POLL_MS = 100;

  private final Vertx vertx;
  private final WebClient http;
  private final EngineSpec spec;
  private final long deadline;
  private final Promise<Void> done = Promise.promise();

  private EngineDrain(Vertx vertx, WebClient http, EngineSpec spec, long maxMs) {
    this.vertx = vertx;
    this.http = http;
    this.spec = spec;
    this.deadline = System.nanoTime() + maxMs * 1_000_000;
  }

  static Future<Void> drain(Vertx vertx, WebClient http, EngineSpec spec, long maxMs) {
    if (maxMs <= 0) {
      return Future.succeededFuture();
    }
    EngineDrain d = new EngineDrain(vertx, http, spec, maxMs);
    d.poll();
    return d.done.future();
  }

  private void poll() {
    if (System.nanoTime() >= deadline) {
      done.tryComplete();
      return;
    }
    http.post(spec.endpoint().port(), spec.endpoint().host(), LoadReporter.PATH)
        .timeout(spec.health().timeout().toMillis()).sendJsonObject(new JsonObject())
        .onComplete(ar -> {
          JsonObject metrics = ar.succeeded() && ar.result().statusCode() == 200
              ? ar.result().bodyAsJsonObject().getJsonObject("metrics") : null;
          Integer running = metrics == null ? null : metrics.getInteger("running");
          Integer waiting = metrics == null ? null : metrics.getInteger("waiting");
          if (running == null || running + (waiting == null ? 0 : waiting) == 0) {
            done.tryComplete(); // idle, gone, or no gauges to wait on
          } else {
            vertx.setTimer(POLL_MS, t -> poll());
          }
        });
  }
}
