package dev.tandem.fleet;

import io.vertx.core.AsyncResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.function.Consumer;

/**
 * What runs while an engine is READY: the non-overlapping health loop (after
 * {@code healthFailures} failed probes in a row it calls {@code onUnhealthy} once, with the last
 * failure) and the {@link LoadReporter}. Started and stopped by the EngineVerticle's state changes.
 */
final class EngineWatch {

  private final EngineSpec spec;
  private final Consumer<String> onUnhealthy;
  private final RepeatingProbe<HttpResponse<Buffer>> health;
  private final LoadReporter load;
  private int failures;
  private boolean reported;

  private EngineWatch(Vertx vertx, WebClient http, EngineSpec spec, int generation,
      Consumer<String> onUnhealthy) {
    this.spec = spec;
    this.onUnhealthy = onUnhealthy;
    this.health = RepeatingProbe.start(vertx, spec.health().interval().toMillis(), false,
        () -> http.get(spec.endpoint().port(), spec.endpoint().host(), spec.healthPath())
            .timeout(spec.health().timeout().toMillis()).send(), this::onHealth);
    this.load = LoadReporter.start(vertx, http, spec, generation);
  }

  /**
   * @param onUnhealthy called once with {@code "N health probes failed (last: ...)"}
   */
  static EngineWatch start(Vertx vertx, WebClient http, EngineSpec spec, int generation,
      Consumer<String> onUnhealthy) {
    return new EngineWatch(vertx, http, spec, generation, onUnhealthy);
  }

  void stop() {
    health.stop();
    if (load != null) {
      load.stop();
    }
  }

  /** One probe's result (a stopped loop drops late results). */
  private void onHealth(AsyncResult<HttpResponse<Buffer>> ar) {
    String failure = ar.failed() ? String.valueOf(ar.cause().getMessage())
        : ar.result().statusCode() == 200 ? null : "HTTP " + ar.result().statusCode();
    failures = failure == null ? 0 : failures + 1;
    if (failures >= spec.health().failures() && !reported) {
      reported = true;
      onUnhealthy.accept(failures + " health probes failed (last: " + failure + ")");
    }
  }
}
