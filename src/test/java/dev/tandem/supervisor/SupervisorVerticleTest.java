package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.bus.Addresses;
import dev.tandem.fleet.FakeEngine;
import dev.tandem.testing.Eventually;
import dev.tandem.testing.Failures;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Supervisor orchestration against {@link FakeEngine} processes launched by a fault-injecting
 * profile: what real engines cannot be made to do on demand (one engine dying while the others
 * wait). The real fleet is covered by FleetIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 90, timeUnit = TimeUnit.SECONDS)
class SupervisorVerticleTest {
  @TempDir Path dir;
  private RouterConfig config;

  @BeforeEach
  void config() throws IOException {
    Path model = TinyModel.stub(dir.resolve("model"));
    int[] ports = FreePorts.of(4);
    config = new RouterConfig().set(MODEL, model.toString()).set(ROUTER_MODE, RouterMode.ROUND_ROBIN)
        .set(ROUTER_PORT, ports[3]).set(ENDPOINT_PORTS, List.of(ports[0], ports[1], ports[2]))
        .set(LOG_DIR, dir.resolve("logs").toString()).set(STARTUP_TIMEOUT, Duration.ofSeconds(30))
        .set(HEALTH_INTERVAL, Duration.ofMillis(300)).set(STOP_GRACE, Duration.ofSeconds(2));
  }

  @Test
  void oneEngineFailingStopsTheOthersAtOnceAndNamesTheEngine(Vertx vertx, VertxTestContext ctx) {
    // Engines 0 and 2 would take a minute (as engines waiting for a world that cannot form).
    FakeEngineProfile profile = new FakeEngineProfile(id -> id == 1
        ? List.of("--say", "error: model.safetensors truncated", "--ready-after-ms", "60000",
            "--exit-after-ms", "1500", "--exit-code", "4")
        : List.of("--ready-after-ms", "60000"));
    long t0 = System.nanoTime();
    Failures.of(vertx.deployVerticle(new SupervisorVerticle(config, null, noTokenizer(), profile)))
        .onComplete(ctx.succeeding(failure -> ctx.verify(() -> {
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
          String message = failure.getMessage();
          assertTrue(message.startsWith("engine 1 (both, 127.0.0.1:" + config.get(ENDPOINT_PORTS).get(1)
              + ", cpu:1) exited with code 4 before it was ready"), message);
          assertTrue(message.contains("  | error: model.safetensors truncated"), message);
          assertTrue(ms < 15_000, "failed fast, not at the deadline: " + ms + " ms");
          for (long pid : pidsFromLogs()) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                "engine process " + pid + " left behind");
          }
          ctx.completeNow();
        })));
  }

  @Test
  void fleetIsServedByTheStandInRouterAndUndeployStopsEveryEngine(Vertx vertx,
      VertxTestContext ctx) {
    List<JsonObject> events = new CopyOnWriteArrayList<>();
    vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.engineStatus(), m -> events.add(m.body()));
    WebClient http = WebClient.create(vertx);
    int port = config.get(ROUTER_PORT);
    List<Long> pids = new ArrayList<>();
    vertx.deployVerticle(new SupervisorVerticle(config, StandInRouterVerticle.factory(),
            noTokenizer(), new FakeEngineProfile(i -> List.of())))
        .compose(id -> http.get(port, "127.0.0.1", "/health").send()
            .compose(health -> {
              ctx.verify(() -> assertEquals(200, health.statusCode()));
              return http.get(port, "127.0.0.1", "/v1/models").send();
            })
            .compose(models -> {
              ctx.verify(() -> assertEquals(config.get(MODEL), models.bodyAsJsonObject()
                  .getJsonArray("data").getJsonObject(0).getString("id")));
              return http.get(port, "127.0.0.1", "/fleet").send();
            })
            .compose(fleet -> {
              ctx.verify(() -> {
                JsonArray engines = fleet.bodyAsJsonObject().getJsonArray("engines");
                assertEquals(3, engines.size());
                for (int i = 0; i < 3; i++) {
                  JsonObject engine = engines.getJsonObject(i);
                  assertEquals(i, engine.getInteger("id"));
                  assertEquals("READY", engine.getString("state"));
                  assertEquals("BOTH", engine.getString("role"));
                  assertEquals(i, engine.getInteger("peStart"));
                  pids.add(engine.getLong("pid"));
                }
              });
              return vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.fleetQuery(), "");
            })
            .compose(viaBus -> {
              ctx.verify(() -> {
                assertEquals("round-robin", viaBus.body().getString("mode"));
                assertEquals(3, viaBus.body().getJsonArray("engines").size());
                assertEquals(dev.tandem.tokenizer.DjlTokenizer.PREFIX_CHARS, keptCharsAsked.get(),
                    "--tokenizer-cache-mb's default reached the tokenizer's loader");
              });
              return vertx.undeploy(id);
            }))
        .compose(undeployed -> {
          ctx.verify(() -> {
            for (long pid : pids) {
              assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid);
            }
          });
          // published before the undeploy ended; delivered to this test's consumer a moment later
          return Eventually.untilTrue(vertx, Duration.ofSeconds(2), "3 STOPPED events",
              () -> events.stream().filter(e -> "STOPPED".equals(e.getString("state"))).count() == 3);
        })
        .compose(v -> Failures.of(http.get(port, "127.0.0.1", "/health").send()))
        .onComplete(ctx.succeeding(closed -> ctx.verify(() -> {
          assertTrue(closed.getMessage().contains("Connection refused"), "router closed: " + closed);
          ctx.completeNow();
        })));
  }

  /** What the last tokenizer load was asked to keep (--tokenizer-cache-mb, as chars). */
  private static final java.util.concurrent.atomic.AtomicLong keptCharsAsked =
      new java.util.concurrent.atomic.AtomicLong(-1);

  /** The stand-in router needs no tokenizer. */
  private static TokenizerLoader noTokenizer() {
    return (modelDir, keptChars) -> {
      keptCharsAsked.set(keptChars);
      return null;
    };
  }

  private List<Long> pidsFromLogs() throws IOException {
    List<Long> pids = new ArrayList<>();
    try (var files = Files.list(dir.resolve("logs"))) {
      for (Path log : files.toList()) {
        Files.readAllLines(log).stream().filter(l -> l.startsWith("fake engine pid "))
            .forEach(l -> pids.add(Long.parseLong(l.split(" ")[3])));
      }
    }
    assertEquals(3, pids.size(), "every engine was started");
    return pids;
  }
}
