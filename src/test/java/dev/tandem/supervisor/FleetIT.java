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

import static dev.tandem.testing.Futures.await;
import static dev.tandem.testing.Futures.awaitFailure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.config.RouterConfig;
import dev.tandem.bus.Addresses;
import dev.tandem.testing.FreePorts;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor in this JVM with real builtin engines ({@code tandem serve} from the tandem jar,
 * tiny model), so that the event bus can be watched directly.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FleetIT {
  private static final Duration INTERVAL = Duration.ofMillis(500);
  @TempDir static Path shared;
  private static Path model;
  @TempDir Path dir;
  private final BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();

  @BeforeAll
  static void tinyModel() throws Exception {
    model = ProcessTools.makeTinyModel(shared);
  }

  @BeforeEach
  void watchBus(Vertx vertx) {
    vertx.eventBus().<JsonObject>consumer(Addresses.ENGINE_STATUS, m -> events.add(m.body()));
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
  void onePrefillTwoDecodeJoinOneWorldAndAKilledEngineComesBack(Vertx vertx) throws Exception {
    RouterConfig config = config(model);
    String id = await(vertx.deployVerticle(new SupervisorVerticle(config)));

    // Started concurrently: every engine was STARTING before the first was READY.
    List<String> startOrder = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      startOrder.add(next().getString("state"));
    }
    assertEquals(List.of("STARTING", "STARTING", "STARTING", "READY", "READY", "READY"), startOrder);

    JsonArray engines = await(vertx.eventBus().<JsonObject>request(Addresses.FLEET_QUERY, ""))
        .body().getJsonArray("engines");
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

    // kill -9 of decode engine 1: detected within two health intervals, restarted, back in the world.
    long pid = engines.getJsonObject(1).getLong("pid");
    long killedAt = System.nanoTime();
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();
    JsonObject unhealthy = next();
    long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    assertEquals("UNHEALTHY", unhealthy.getString("state"));
    assertEquals(1, unhealthy.getInteger("id"));
    assertTrue(detectedMs < 2 * INTERVAL.toMillis(), "detected after " + detectedMs + " ms");
    JsonObject restarting = next();
    assertEquals("RESTARTING", restarting.getString("state"));
    assertEquals(1, restarting.getInteger("generation"));
    JsonObject ready = next();
    assertEquals("READY", ready.getString("state"));
    assertEquals(1, ready.getInteger("id"));
    assertNotEquals(pid, ready.getLong("pid"));
    assertEquals(2, joinedLines(1, 3), "the restarted engine joined the world again");
    JsonObject view = await(vertx.eventBus().<JsonObject>request(Addresses.FLEET_QUERY, "")).body();
    assertEquals("READY", view.getJsonArray("engines").getJsonObject(1).getString("state"));

    await(vertx.undeploy(id));
    assertEquals(List.of(), ProcessTools.awaitGone(
        ProcessTools.processesMentioning(model.toString()), 1000), "engines left after undeploy");
  }

  @Test
  void brokenModelFailsNamingTheEngineItsExitCodeAndLogTailAndLeavesNoProcess(Vertx vertx)
      throws Exception {
    Path broken = Files.createDirectories(dir.resolve("broken"));
    Files.copy(model.resolve("tokenizer.json"), broken.resolve("tokenizer.json"));
    Files.writeString(broken.resolve("config.json"), "{\"architectures\": [\"NotALlama\"]");
    Throwable failure = awaitFailure(vertx.deployVerticle(new SupervisorVerticle(config(broken))));
    String message = failure.getMessage();
    assertTrue(message.matches("(?s)engine \\d \\((prefill|decode), 127\\.0\\.0\\.1:\\d+, cpu:\\d\\)"
        + " exited with code [1-9]\\d* before it was ready .*last lines:\n  \\| .*"), message);
    assertEquals(List.of(), ProcessTools.awaitGone(
        ProcessTools.processesMentioning(broken.toString()), 1000), "no engine left behind");
  }

  private int joinedLines(int pe, int npes) throws IOException {
    String log = Files.readString(dir.resolve("logs/engine-" + pe + ".log"));
    return (int) log.lines().filter(l -> l.contains("joined the world")
        && l.contains("PEs " + pe + ".." + pe + " of " + npes)).count();
  }

  private JsonObject next() throws InterruptedException {
    JsonObject event = events.poll(120, TimeUnit.SECONDS);
    if (event == null) {
      throw new AssertionError("no engine status event within 120 s");
    }
    return event;
  }
}
