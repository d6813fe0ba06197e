package dev.tandem.router.dashboard;

import dev.tandem.router.admission.AdmissionGate;
import dev.tandem.router.metrics.RecentLatencies;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.registry.EngineRegistry;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The dashboard's time series: once per period, the request rate, the in-flight and queued
 * counts, each engine's in-flight count, and TTFT / TPOT percentiles (p50, p90, p99) over the
 * requests of the last {@value #WINDOW_S} seconds; the last {@value #POINTS} points are kept. Runs
 * on the router verticle's context (a periodic timer, no blocking); the page polls
 * {@link #toJson()}.
 */
public final class DashboardFeed {

  static final int POINTS = 300;
  static final int WINDOW_S = 30;

  private final Vertx vertx;
  private final EngineRegistry registry;
  private final AdmissionGate gate;
  private final RecentLatencies latencies;
  private final Counter requests;
  private final Deque<JsonObject> points = new ArrayDeque<>();
  private long timer = -1;
  private double lastCount;
  private long lastNanos;

  public DashboardFeed(Vertx vertx, EngineRegistry registry, AdmissionGate gate,
      RouterMetrics metrics) {
    this.vertx = vertx;
    this.registry = registry;
    this.gate = gate;
    this.latencies = metrics.ops().recent();
    this.requests = metrics.registry().get("tandem_router_requests_total").counter();
  }

  public void start(long periodMs) {
    lastNanos = System.nanoTime();
    lastCount = requests.count();
    timer = vertx.setPeriodic(periodMs, id -> sample());
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  void sample() {
    long now = System.nanoTime();
    double count = requests.count();
    double rate = now > lastNanos ? (count - lastCount) * 1e9 / (now - lastNanos) : 0;
    lastCount = count;
    lastNanos = now;
    RecentLatencies.Window w = latencies.since(now - WINDOW_S * 1_000_000_000L);
    JsonObject inFlight = new JsonObject();
    registry.statuses().forEach(s -> inFlight.put(Integer.toString(s.id()), registry.inFlight(s.id())));
    JsonObject p = new JsonObject().put("t", System.currentTimeMillis())
        .put("rps", round(rate)).put("inFlight", registry.totalInFlight())
        .put("running", gate.running()).put("queued", gate.queued())
        .put("answered", w.count()).put("engines", inFlight)
        .put("ttft", percentiles(w.ttftP50(), w.ttftP90(), w.ttftP99()))
        .put("tpot", percentiles(w.tpotP50(), w.tpotP90(), w.tpotP99()));
    synchronized (points) {
      points.addLast(p);
      if (points.size() > POINTS) {
        points.removeFirst();
      }
    }
  }

  /** The kept points, oldest first. */
  public JsonArray toJson() {
    JsonArray out = new JsonArray();
    synchronized (points) {
      points.forEach(out::add);
    }
    return out;
  }

  /** In milliseconds, null where the window had no sample (a gap in the chart). */
  private static JsonObject percentiles(double p50, double p90, double p99) {
    return new JsonObject().put("p50", ms(p50)).put("p90", ms(p90)).put("p99", ms(p99));
  }

  private static Double ms(double seconds) {
    return Double.isNaN(seconds) ? null : round(seconds * 1000);
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
