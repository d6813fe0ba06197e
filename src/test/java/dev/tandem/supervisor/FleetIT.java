package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.HEALTH_TIMEOUT;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.RESTART_BACKOFF;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterConfig;
import dev.tandem.bus.Addresses;
import dev.tandem.testing.Eventually;
import dev.tandem.testing.Failures;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.StatusEvents;
import dev.tandem.testing.TinyModel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor in this JVM with real builtin engines ({@code tandem serve} from the tandem jar,
 * tiny model), so that the event bus can be watched directly.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 180, timeUnit = TimeUnit.SECONDS)
class FleetIT {
  private static final Duration INTERVAL = Duration.ofMillis(500);
  @TempDir Path dir;
  private StatusEvents events;

  @BeforeEach
  void watchBus(Vertx vertx, VertxTestContext ctx) {
    StatusEvents.watch(vertx, Duration.ofSeconds(120)).onComplete(ctx.succeeding(watcher -> {
      events = watcher;
      ctx.completeNow();
    }));
  }

  private RouterConfig config(Path modelDir) throws IOException {
    int[] ports = FreePorts.of(4);
    return new RouterConfig().set(MODEL, modelDir.toString()).set(ROUTER_PORT, ports[3])
        .set(ENDPOINT_PORTS, List.of(ports[0], ports[1], ports[2]))
        .set(LOG_DIR, dir.resolve("logs").toString()).set(ENGINE_JVM_OPTS, List.of("-Xmx256m"))
        .set(STARTUP_TIMEOUT, Duration.ofSeconds(90)).set(HEALTH_INTERVAL, INTERVAL)
        .set(HEALTH_TIMEOUT, Duration.ofSeconds(2)).set(STOP_GRACE, Duration.ofSeconds(5))
        .set(RESTART_BACKOFF, Duration.ofMillis(200));
  }

  @Test
  void onePrefillTwoDecodeJoinOneWorldAndAKilledEngineComesBack(Vertx vertx, VertxTestContext ctx)
      throws IOException {
    Path model = TinyModel.copyTo(dir.resolve("tiny")); // this test's engines name this path
    long[] killed = new long[2]; // pid, nanoTime
    vertx.deployVerticle(new SupervisorVerticle(config(model))).compose(id -> events.next(6)
        .compose(started -> {
          // Started concurrently: every engine was STARTING before the first was READY.
          ctx.verify(() -> assertEquals(List.of("STARTING", "STARTING", "STARTING", "READY", "READY",
              "READY"), started.stream().map(e -> e.getString("state")).toList()));
          return vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.fleetQuery(), "");
        })
        .compose(reply -> {
          JsonArray engines = reply.body().getJsonArray("engines");
          ctx.verify(() -> {
            assertEquals(3, engines.size());
            Set<String> uids = new HashSet<>();
            for (int pe = 0; pe < 3; pe++) {
              JsonObject engine = engines.getJsonObject(pe);
              assertEquals(pe == 0 ? "PREFILL" : "DECODE", engine.getString("role"));
              long pid = engine.getLong("pid");
              assertTrue(ProcessTools.cmdline(pid).contains("serve " + model + " --device cpu:" + pe + " "),
                  ProcessTools.cmdline(pid));
              JsonObject init = new JsonObject(ProcessTools.environ(pid).get("MLC_NVSHMEM_INIT_CONFIG_JSON_STR"));
              assertEquals(3, init.getInteger("npes"));
              assertEquals(pe, init.getInteger("pe_start"));
              assertEquals(125, init.getJsonArray("uid").size());
              uids.add(init.getJsonArray("uid").encode());
              assertEquals(1, joinedLines(pe, 3), "engine " + pe + " reports its place in the world");
            }
            assertEquals(1, uids.size(), "one world");
          });
          // kill -9 of decode engine 1: detected within two health intervals, restarted, back in the world.
          killed[0] = engines.getJsonObject(1).getLong("pid");
          killed[1] = System.nanoTime();
          ProcessHandle.of(killed[0]).orElseThrow().destroyForcibly();
          return events.next();
        })
        .compose(unhealthy -> {
          long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed[1]);
          ctx.verify(() -> {
            assertEquals("UNHEALTHY", unhealthy.getString("state"));
            assertEquals(1, unhealthy.getInteger("id"));
            assertTrue(detectedMs < 2 * INTERVAL.toMillis(), "detected after " + detectedMs + " ms");
          });
          return events.next();
        })
        .compose(restarting -> {
          ctx.verify(() -> {
            assertEquals("RESTARTING", restarting.getString("state"));
            assertEquals(1, restarting.getInteger("generation"));
          });
          return events.next();
        })
        .compose(ready -> {
          ctx.verify(() -> {
            assertEquals("READY", ready.getString("state"));
            assertEquals(1, ready.getInteger("id"));
            assertNotEquals(killed[0], ready.getLong("pid"));
            assertEquals(2, joinedLines(1, 3), "the restarted engine joined the world again");
          });
          // the supervisor learns it from the same published event, perhaps after this test did
          return Eventually.until(vertx, Duration.ofSeconds(2), "the supervisor's view of engine 1 READY",
              () -> vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.fleetQuery(), "").map(view ->
                  "READY".equals(view.body().getJsonArray("engines").getJsonObject(1).getString("state"))));
        })
        .compose(v -> vertx.undeploy(id)))
        .compose(v -> noProcessMentions(vertx, model, "engines left after undeploy"))
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void brokenModelFailsNamingTheEngineItsExitCodeAndLogTailAndLeavesNoProcess(Vertx vertx,
      VertxTestContext ctx) throws IOException {
    Path broken = Files.createDirectories(dir.resolve("broken"));
    Files.copy(TinyModel.shared().resolve("tokenizer.json"), broken.resolve("tokenizer.json"));
    Files.writeString(broken.resolve("config.json"), "{\"architectures\": [\"NotALlama\"]");
    Failures.of(vertx.deployVerticle(new SupervisorVerticle(config(broken))))
        .compose(failure -> {
          ctx.verify(() -> {
            String message = failure.getMessage();
            assertTrue(message.matches("(?s)engine \\d \\((prefill|decode), 127\\.0\\.0\\.1:\\d+, cpu:\\d\\)"
                + " exited with code [1-9]\\d* before it was ready .*last lines:\n  \\| .*"), message);
          });
          return noProcessMentions(vertx, broken, "no engine left behind");
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  /** Completes once no process names {@code model} on its command line (within a second). */
  private static Future<Void> noProcessMentions(Vertx vertx, Path model, String what) {
    return Eventually.until(vertx, Duration.ofSeconds(1), what, () -> vertx.executeBlocking(() -> {
      List<Long> left = ProcessTools.processesMentioning(model.toString());
      if (!left.isEmpty()) {
        throw new AssertionError("still running: " + left);
      }
      return true;
    }));
  }

  private int joinedLines(int pe, int npes) throws IOException {
    String log = Files.readString(dir.resolve("logs/engine-" + pe + ".log"));
    return (int) log.lines().filter(l -> l.contains("joined the world")
        && l.contains("PEs " + pe + ".." + pe + " of " + npes)).count();
  }
}
