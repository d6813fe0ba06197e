package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The null engine answers on its schedule, with usage and its own timings, streaming or not. */
@ExtendWith(VertxExtension.class)
class NullEngineServerTest {

  private static BenchOptions options(int port, boolean stream) {
    WorkloadSpec w = new WorkloadSpec(List.of(new WorkloadClass("default", LengthDistribution.parse("12"),
        LengthDistribution.parse("5"), 1)), PromptKind.IDS, 100, 3, null, 1);
    return new BenchOptions("http://127.0.0.1:" + port, null, stream, true, 8, 0, 40, 0, 0, 0, 64, 10_000, w,
        Double.NaN, Double.NaN, false);
  }

  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void answersOnScheduleWithUsageAndEngineTimings(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 30, 4, new AtomicInteger());
    PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
    vertx.deployVerticle(server)
        .compose(id -> Future.<BenchReport>future(p -> new Thread(() ->
            BenchRunner.run(vertx, options(server.actualPort(), true), nowhere).onComplete(p)).start()))
        .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
          GroupStats g = report.overall();
          assertEquals(40, g.ok());
          assertEquals(200, g.outputTokens());
          assertEquals(480, g.promptTokens());
          assertTrue(g.tokensFromUsage());
          assertTrue(g.ttft().p50() >= 30, "ttft " + g.ttft());
          assertTrue(g.tpot().p50() >= 4, "tpot " + g.tpot());
          assertEquals(40, g.outsideEngineE2e().count(), "its usage carries its own timings");
          assertTrue(g.outsideEngineE2e().p50() >= 0 && g.outsideEngineE2e().p50() < g.e2e().p50());
          ctx.completeNow();
        })));
  }

  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void nonStreaming(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 10, 2, new AtomicInteger());
    PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
    vertx.deployVerticle(server)
        .compose(id -> Future.<BenchReport>future(p -> new Thread(() ->
            BenchRunner.run(vertx, options(server.actualPort(), false), nowhere).onComplete(p)).start()))
        .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
          assertEquals(40, report.overall().ok());
          assertEquals(200, report.overall().outputTokens());
          assertTrue(report.overall().e2e().p50() >= 10 + 4 * 2);
          ctx.completeNow();
        })));
  }

  @Test
  @Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
  void reportsItsRunningCountWhereEngineVerticlesReadLoad(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 10, 2, new AtomicInteger(3));
    WebClient http = WebClient.create(vertx);
    vertx.deployVerticle(server)
        .compose(id -> http.post(server.actualPort(), "127.0.0.1", "/debug/dump_engine_metrics")
            .sendJsonObject(new JsonObject()))
        .onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
          JsonObject metrics = resp.bodyAsJsonObject().getJsonObject("metrics");
          assertEquals(3, metrics.getInteger("running"));
          assertEquals(0, metrics.getInteger("waiting"));
          assertEquals(100_000, metrics.getInteger("kv_pages_total"));
          ctx.completeNow();
        })));
  }
}
