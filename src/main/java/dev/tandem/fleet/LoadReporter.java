package dev.tandem.fleet;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.LoadReport;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports one READY engine's load on the bus: every {@code loadReportInterval} (after the previous
 * read finished) it posts {@code {}} to the engine's {@value #PATH} — MLC's debug route, mounted
 * under {@code --enable-debug}, which both profiles pass — and publishes the answer as a
 * {@link LoadReport} on {@link Addresses#engineLoad()}. Logs when the load becomes unreadable or
 * readable again, not on every read. One instance per READY period of one engine process.
 */
final class LoadReporter {
  static final String PATH = "/debug/dump_engine_metrics";
  private static final Logger LOG = LoggerFactory.getLogger(LoadReporter.class);

  private final Vertx vertx;
  private final WebClient http;
  private final EngineSpec spec;
  private final int generation;
  private final long periodMs;
  private final RepeatingProbe<LoadReport> loop;
  private boolean unreadable;

  private LoadReporter(Vertx vertx, WebClient http, EngineSpec spec, int generation) {
    this.vertx = vertx;
    this.http = http;
    this.spec = spec;
    this.generation = generation;
    this.periodMs = spec.loadReportInterval().toMillis();
    this.loop = RepeatingProbe.start(vertx, periodMs, true, this::read, this::publish);
  }

  /** Starts reporting for engine process {@code generation}; null when reporting is off (0). */
  static LoadReporter start(Vertx vertx, WebClient http, EngineSpec spec, int generation) {
    return spec.loadReportInterval().isZero() ? null
        : new LoadReporter(vertx, http, spec, generation);
  }

  void stop() {
    loop.stop();
  }

  private Future<LoadReport> read() {
    return http.post(spec.endpoint().port(), spec.endpoint().host(), PATH)
        .timeout(spec.health().timeout().toMillis())
        .sendJsonObject(new JsonObject())
        .compose(resp -> {
          if (resp.statusCode() != 200) {
            return Future.failedFuture("HTTP " + resp.statusCode() + " from POST " + PATH);
          }
          return Future.succeededFuture(EngineLoad.fromDump(spec.endpoint().id(), generation,
              periodMs, System.currentTimeMillis(), resp.bodyAsJsonObject()));
        });
  }

  private void publish(AsyncResult<LoadReport> ar) {
    if (ar.succeeded()) {
      if (unreadable) {
        unreadable = false;
        LOG.info("{}: load readable again", spec.describe());
      }
      vertx.eventBus().publish(spec.bus().engineLoad(), ar.result().toJson());
    } else if (!unreadable) {
      unreadable = true;
      LOG.warn("{}: load unreadable ({}); routers balance on their own in-flight counts",
          spec.describe(), ar.cause().getMessage());
    }
  }
}
