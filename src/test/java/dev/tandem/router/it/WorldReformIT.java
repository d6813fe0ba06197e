package dev.tandem.router.it;

import static dev.tandem.config.RouterConfig.FIXED_WORLD;
import static dev.tandem.config.RouterConfig.REFORM_DRAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A world that admits no late member, as NVSHMEM's: builtin engines (1 prefill + 2 decode) under
 * {@code --fixed-world}. A decode engine is killed; it cannot rejoin, so the survivors serve
 * without KV transfers while the supervisor re-forms the world with a new uid, restarting every
 * engine in it. Requests sent all along succeed with the undisturbed answer; afterwards the world
 * is whole again (next epoch, new uid) and the prefill engine ships KV again.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@io.vertx.junit5.Timeout(value = 150, timeUnit = TimeUnit.SECONDS)
class WorldReformIT {

  @TempDir static Path dir;
  static TandemFleet fleet;

  @BeforeAll
  static void startFleet(Vertx vertx, VertxTestContext ctx) throws IOException {
    TandemFleet.start(vertx, dir,
            c -> c.set(FIXED_WORLD, true).set(REFORM_DRAIN, Duration.ofSeconds(5)))
        .onComplete(ctx.succeeding(started -> {
          fleet = started;
          ctx.completeNow();
        }));
  }

  @AfterAll
  static void stopFleet(VertxTestContext ctx) {
    if (fleet == null) {
      ctx.completeNow();
    } else {
      fleet.close().onComplete(ctx.succeedingThenComplete());
    }
  }

  static final JsonObject REQUEST = new JsonObject().put("prompt", "Keep talking")
      .put("max_tokens", 24).put("temperature", 0);

  static String text(HttpResponse<String> r) {
    assertEquals(200, r.statusCode(), r.body());
    return new JsonObject(r.body()).getJsonArray("choices").getJsonObject(0).getString("text");
  }

  boolean wholeIn(int epoch) {
    JsonObject view = fleet.fleetView();
    if (view.getJsonObject("world").getInteger("epoch") != epoch) {
      return false;
    }
    for (Object o : view.getJsonArray("engines")) {
      JsonObject e = (JsonObject) o;
      if (!e.getString("state").equals("READY") || e.getJsonObject("world") == null
          || e.getJsonObject("world").getInteger("epoch") != epoch) {
        return false;
      }
    }
    return true;
  }

  @Test
  void aDeadEngineOfAFixedWorldIsHealedByAReformWhileRequestsKeepSucceeding() throws Exception {
    int port = fleet.routerPort();
    JsonObject before = fleet.fleetView().getJsonObject("world");
    assertEquals(0, before.getInteger("epoch"));
    assertTrue(before.getBoolean("fixed"));
    String expected = text(fleet.post(port, "/v1/completions", REQUEST.encode()));
    assertTrue(fleet.engineMetric(0, "tandem_engine_remote_send_total") > 0, "disagg at first");

    List<String> answers = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread client = new Thread(() -> {
      while (!stop.get()) {
        HttpResponse<String> r = fleet.post(port, "/v1/completions", REQUEST.encode());
        answers.add(r.statusCode() == 200 ? text(r) : r.statusCode() + " " + r.body());
      }
    }, "steady-client");
    client.start();
    JsonArray engines = fleet.fleet();
    long victim = engines.getJsonObject(2).getLong("pid");
    TandemFleet.waitUntil(() -> answers.size() >= 2, 30_000, "requests before the kill");
    assertTrue(ProcessHandle.of(victim).orElseThrow().destroyForcibly(), "kill -9 " + victim);

    TandemFleet.waitUntil(() -> {
      try {
        return wholeIn(1);
      } catch (Exception e) {
        return false;
      }
    }, 150_000, "the world whole again in epoch 1");
    int during = answers.size();
    TandemFleet.waitUntil(() -> answers.size() >= during + 2, 30_000, "requests after the re-form");
    stop.set(true);
    client.join(130_000);

    for (int i = 0; i < answers.size(); i++) {
      assertEquals(expected, answers.get(i), "request " + i + " of " + answers.size()
          + " (during the re-form too)" + logTail());
    }
    JsonObject after = fleet.fleetView().getJsonObject("world");
    assertNotEquals(before.getJsonArray("uid"), after.getJsonArray("uid"), "a new uid");
    for (Object o : fleet.fleet()) {
      assertTrue(((JsonObject) o).getInteger("generation") >= 1, "every engine restarted: " + o);
    }
    assertEquals(expected, text(fleet.post(port, "/v1/completions", REQUEST.encode())));
    assertTrue(fleet.engineMetric(0, "tandem_engine_remote_send_total") > 0,
        "the new prefill engine ships KV again: disagg resumed");
    fleet.awaitRouterIdle(port);
  }

  /** The re-form's progress lines are the supervisor's (in this JVM's log); engine logs help too. */
  static String logTail() {
    try (var files = Files.list(dir.resolve("logs"))) {
      return "\n" + files.map(Path::toString).toList();
    } catch (Exception e) {
      return "";
    }
  }
}
