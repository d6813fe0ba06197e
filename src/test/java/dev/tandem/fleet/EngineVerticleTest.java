package dev.tandem.fleet;

import static dev.tandem.testing.Futures.await;
import static dev.tandem.testing.Futures.awaitFailure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.LoadReport;
import dev.tandem.config.EndpointConfig;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The EngineVerticle state machine against {@link FakeEngine} processes (real child JVMs and real
 * HTTP, fake only in that they serve no model), so that failures can be provoked on demand.
 * The same behaviour against real builtin engines is covered by FleetIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EngineVerticleTest {
  private static final Duration INTERVAL = Duration.ofMillis(300);
  @TempDir Path dir;
  private final BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
  private final List<String> states = new ArrayList<>();
  private int port;

  @BeforeEach
  void listen(Vertx vertx) throws IOException {
    vertx.eventBus().<JsonObject>consumer(Addresses.ENGINE_STATUS, msg -> events.add(msg.body()));
    try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
  }

  @Test
  void kill9IsDetectedRestartedAndReadyAgainWithEveryStatePublished(Vertx vertx) throws Exception {
    String id = await(vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3))));
    JsonObject ready = awaitState("READY");
    long pid = ready.getLong("pid");
    assertEquals(0, ready.getInteger("generation"));
    assertEquals("cpu:0", ready.getString("device"));

    long killedAt = System.nanoTime();
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();
    JsonObject unhealthy = awaitState("UNHEALTHY");
    long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    assertTrue(detectedMs < 2 * INTERVAL.toMillis(), "detected in " + detectedMs + " ms");
    assertEquals("process exited with code 137", unhealthy.getString("detail"));
    assertEquals(1, awaitState("RESTARTING").getInteger("generation"));
    JsonObject again = awaitState("READY");
    assertEquals(1, again.getInteger("generation"));
    assertNotEquals(pid, again.getLong("pid"));

    await(vertx.undeploy(id));
    awaitState("STOPPED");
    assertEquals(List.of("STARTING", "READY", "UNHEALTHY", "RESTARTING", "READY", "STOPPED"), states);
    assertFalse(ProcessHandle.of(again.getLong("pid")).map(ProcessHandle::isAlive).orElse(false));
  }

  @Test
  void engineThatExitsBeforeReadyFailsTheStartWithExitCodeAndLogTail(Vertx vertx) throws Exception {
    EngineVerticle engine = new EngineVerticle(spec(List.of("--say", "boom: weights missing",
        "--exit-after-ms", "0", "--exit-code", "3"), Duration.ofSeconds(30), 3));
    Throwable failure = awaitFailure(vertx.deployVerticle(engine));
    String message = failure.getMessage();
    assertTrue(message.startsWith("engine 0 (decode, 127.0.0.1:" + port + ", cpu:0) exited with code 3"
        + " before it was ready"), message);
    assertTrue(message.contains("  | boom: weights missing"), message);
    assertEquals(3, ((EngineStartException) failure).exitCode());
    assertEquals("FAILED", awaitState("FAILED").getString("state"));
    assertTrue(Files.readString(engine.spec().logFile()).contains("boom: weights missing"));
  }

  @Test
  void engineNeverReadyFailsAtTheDeadlineAndIsKilled(Vertx vertx) throws Exception {
    EngineVerticle engine = new EngineVerticle(spec(List.of("--ready-after-ms", "60000"),
        Duration.ofMillis(2500), 3));
    long t0 = System.nanoTime();
    String message = awaitFailure(vertx.deployVerticle(engine)).getMessage();
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(message.startsWith("engine 0 (decode, 127.0.0.1:" + port + ", cpu:0) was not ready"
        + " after 2.5 s (GET /v1/models never answered 200"), message);
    assertTrue(ms < 8000, "failed at the deadline, not later: " + ms + " ms");
    long pid = pidFromLog(engine.spec().logFile());
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "no process left");
  }

  @Test
  void unresponsiveEngineIsRestarted(Vertx vertx) throws Exception {
    await(vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3))));
    long pid = awaitState("READY").getLong("pid");
    new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor();
    JsonObject unhealthy = awaitState("UNHEALTHY");
    assertTrue(unhealthy.getString("detail").startsWith("2 health probes failed"),
        unhealthy.getString("detail"));
    awaitState("RESTARTING");
    JsonObject ready = awaitState("READY");
    assertNotEquals(pid, ready.getLong("pid"));
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
        "the frozen process was killed after the grace period");
  }

  @Test
  void crashLoopGivesUpAfterTheRestartLimit(Vertx vertx) throws Exception {
    await(vertx.deployVerticle(new EngineVerticle(spec(List.of("--exit-after-ms", "1500",
        "--exit-code", "9"), Duration.ofSeconds(30), 1))));
    JsonObject failed = awaitState("FAILED");
    assertEquals("gave up after 1 restarts; last: exited with code 9", failed.getString("detail"));
    assertEquals(List.of("STARTING", "READY", "UNHEALTHY", "RESTARTING", "READY", "UNHEALTHY",
        "FAILED"), states);
  }

  @Test
  void controlAddressAnswersStatusAndRestarts(Vertx vertx) throws Exception {
    await(vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3))));
    awaitState("READY");
    String address = Addresses.engineControl(0);
    JsonObject status = await(vertx.eventBus().<JsonObject>request(address, "status")).body();
    assertEquals("READY", status.getString("state"));
    assertEquals("http://127.0.0.1:" + port, status.getString("url"));
    await(vertx.eventBus().request(address, new JsonObject().put("action", "restart")));
    awaitState("RESTARTING");
    Throwable busy = awaitFailure(vertx.eventBus().request(address, "restart"));
    assertEquals(409, ((ReplyException) busy).failureCode());
    assertEquals(1, awaitState("READY").getInteger("generation"));
    Throwable unknown = awaitFailure(vertx.eventBus().request(address, "explode"));
    assertEquals(400, ((ReplyException) unknown).failureCode());
  }

  private EngineSpec spec(List<String> fakeArgs, Duration startup, int restartLimit) throws Exception {
    return spec(fakeArgs, startup, restartLimit, Duration.ZERO);
  }

  private EngineSpec spec(List<String> fakeArgs, Duration startup, int restartLimit,
      Duration loadInterval) throws Exception {
    String classes = Path.of(FakeEngine.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI()).toString();
    List<String> argv = new ArrayList<>(List.of(BuiltinProfile.javaExecutable(), "-Xmx32m",
        "-XX:TieredStopAtLevel=1", "-cp", classes, FakeEngine.class.getName(), Integer.toString(port)));
    argv.addAll(fakeArgs);
    EndpointConfig endpoint = new EndpointConfig(0, "127.0.0.1", port, 1, 0, EngineRole.DECODE);
    return new EngineSpec(endpoint, "cpu:0", new EngineCommand(argv, Map.of()), "/v1/models",
        "/health", dir.resolve("engine-0.log"), startup, Duration.ofMillis(500),
        new HealthPolicy(INTERVAL, Duration.ofMillis(300), 2),
        new RestartPolicy(Duration.ofMillis(100), Duration.ofSeconds(2), restartLimit),
        loadInterval);
  }

  @Test
  void readyEngineReportsItsLoadEveryPeriodWithItsGeneration(Vertx vertx, VertxTestContext ctx)
      throws Exception {
    List<LoadReport> reports = new CopyOnWriteArrayList<>();
    Checkpoint firstProcess = ctx.checkpoint(3);
    Checkpoint restarted = ctx.checkpoint();
    long[] pid = {0};
    vertx.eventBus().<JsonObject>consumer(Addresses.ENGINE_LOAD, msg -> {
      LoadReport r = LoadReport.fromJson(msg.body());
      reports.add(r);
      if (r.generation() == 0 && reports.size() <= 3) {
        ctx.verify(() -> {
          assertEquals(0, r.id());
          assertEquals(2, r.running());
          assertEquals(9, r.waiting());
          assertEquals(100L, r.kvPagesFree());
          assertEquals(128L, r.kvPagesTotal());
          assertEquals(100, r.periodMs());
          assertEquals(0, r.metrics().getInteger("prompt_tokens_sum"));
        });
        firstProcess.flag();
        if (reports.size() == 3) { // then a crash: the next process reports as generation 1
          ProcessHandle.of(pid[0]).orElseThrow().destroyForcibly();
        }
      } else if (r.generation() == 1) {
        restarted.flag();
      }
    });
    vertx.eventBus().<JsonObject>consumer(Addresses.ENGINE_STATUS, msg -> {
      if (msg.body().getString("state").equals("READY") && pid[0] == 0) {
        pid[0] = msg.body().getLong("pid");
      }
    });
    vertx.deployVerticle(new EngineVerticle(spec(List.of("--running", "2", "--waiting", "9"),
        Duration.ofSeconds(30), 3, Duration.ofMillis(100)))).onFailure(ctx::failNow);
    assertTrue(ctx.awaitCompletion(30, TimeUnit.SECONDS), "reports of both processes");
    if (ctx.failed()) {
      throw new AssertionError(ctx.causeOfFailure());
    }
    List<Integer> generations = reports.stream().map(LoadReport::generation).toList();
    assertEquals(generations.stream().sorted().toList(), generations, "no report of generation 0 "
        + "after generation 1 started");
  }

  @Test
  void noLoadReportsWhenTheIntervalIsZeroOrTheEngineIsStopped(Vertx vertx, VertxTestContext ctx)
      throws Exception {
    List<JsonObject> reports = new CopyOnWriteArrayList<>();
    vertx.eventBus().<JsonObject>consumer(Addresses.ENGINE_LOAD, msg -> reports.add(msg.body()));
    String id = await(vertx.deployVerticle(new EngineVerticle(spec(List.of(),
        Duration.ofSeconds(30), 3, Duration.ZERO))));
    awaitState("READY");
    vertx.setTimer(500, t -> ctx.verify(() -> {
      assertEquals(List.of(), reports, "interval 0 turns reporting off");
      vertx.undeploy(id).onComplete(ctx.succeedingThenComplete());
    }));
    assertTrue(ctx.awaitCompletion(20, TimeUnit.SECONDS));
  }

  @Test
  void stoppedEngineReportsNoMoreLoad(Vertx vertx, VertxTestContext ctx) throws Exception {
    List<JsonObject> reports = new CopyOnWriteArrayList<>();
    Promise<String> deployed = Promise.promise();
    vertx.eventBus().<JsonObject>consumer(Addresses.ENGINE_LOAD, msg -> {
      if (reports.add(msg.body()) && reports.size() == 1) {
        deployed.future().compose(vertx::undeploy).onComplete(ctx.succeeding(v -> {
          int atStop = reports.size();
          // a few periods for a report that must not come
          vertx.setTimer(300, t -> ctx.verify(() -> {
            assertEquals(atStop, reports.size(), "reports after STOPPED");
            ctx.completeNow();
          }));
        }));
      }
    });
    vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3,
        Duration.ofMillis(50)))).onComplete(deployed);
    assertTrue(ctx.awaitCompletion(20, TimeUnit.SECONDS));
  }

  private JsonObject awaitState(String state) throws InterruptedException {
    return awaitEvent(e -> state.equals(e.getString("state")), "state " + state);
  }

  private JsonObject awaitEvent(Predicate<JsonObject> wanted, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      JsonObject event = events.poll(100, TimeUnit.MILLISECONDS);
      if (event != null) {
        states.add(event.getString("state"));
        if (wanted.test(event)) {
          return event;
        }
      }
    }
    throw new AssertionError("no " + what + " within 30 s; states so far " + states);
  }

  private static long pidFromLog(Path log) throws IOException {
    return Files.readAllLines(log).stream().filter(l -> l.startsWith("fake engine pid "))
        .map(l -> Long.parseLong(l.split(" ")[3])).findFirst().orElseThrow();
  }
}
