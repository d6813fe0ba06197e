package dev.tandem.router.registry;

import dev.tandem.bus.EngineStatus;
import dev.tandem.router.policy.LoadGauges;
import dev.tandem.router.upstream.EngineClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every READY engine's {@code /metrics} gauges into the registry, periodically. A tick
 * schedules the next only when all its reads finished, so ticks never overlap however slow an
 * engine is. Logs when an engine's gauges become unreadable or readable again, not on every tick.
 */
public final class GaugeScraper {

  private static final Logger LOG = LoggerFactory.getLogger(GaugeScraper.class);
  public static final String METRICS_PATH = "/metrics";

  private final Vertx vertx;
  private final EngineRegistry registry;
  private final EngineClient client;
  private final long intervalMs;
  private final long timeoutMs;
  private final Set<Integer> unreadable = new HashSet<>();
  private long timerId = -1;
  private boolean stopped;

  public GaugeScraper(Vertx vertx, EngineRegistry registry, EngineClient client, long intervalMs,
      long timeoutMs) {
    this.vertx = vertx;
    this.registry = registry;
    this.client = client;
    this.intervalMs = intervalMs;
    this.timeoutMs = timeoutMs;
  }

  public void start() {
    if (intervalMs > 0) {
      schedule();
    }
  }

  public void stop() {
    stopped = true;
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
    }
  }

  private void schedule() {
    if (!stopped) {
      timerId = vertx.setTimer(intervalMs, id -> {
        timerId = -1;
        tick().onComplete(ar -> schedule());
      });
    }
  }

  /** One pass over the READY engines; completes when every read finished (or failed). */
  Future<Void> tick() {
    List<Future<?>> reads = new ArrayList<>();
    for (EngineStatus engine : registry.ready()) {
      reads.add(client.getText(engine.id(), engine.url(), METRICS_PATH, timeoutMs)
          .onSuccess(text -> {
            LoadGauges gauges = EngineGaugeReader.read(PrometheusText.parse(text));
            if (gauges != null) {
              registry.updateGauges(engine.id(), engine.generation(), gauges);
            }
            if (unreadable.remove(engine.id())) {
              LOG.info("engine {} metrics readable again", engine.id());
            }
          })
          .onFailure(e -> {
            if (unreadable.add(engine.id())) {
              LOG.warn("engine {} metrics unreadable: {}", engine.id(), e.getMessage());
            }
          }));
    }
    return Future.join(reads).mapEmpty();
  }
}
