package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.LoadReport;
import dev.tandem.config.EndpointConfig;
import dev.tandem.testing.Failures;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.StandardErrorCapture;
import dev.tandem.testing.StatusEvents;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The EngineVerticle state machine against {@link FakeEngine} processes (real child JVMs and real
 * HTTP, fake only in that they serve no model), so that failures can be provoked on demand.
 * The same behaviour against real builtin engines is covered by FleetIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 90, timeUnit = TimeUnit.SECONDS)
class EngineVerticleTest {
  private static final Duration INTERVAL = Duration.ofMillis(300);
  @TempDir Path dir;
  private StatusEvents events;
  private int port;
  /** Standard error while a test captures it. */
  private StandardErrorCapture stderr;

  @BeforeEach
  void watchStatusEvents(Vertx vertx, VertxTestContext ctx) throws IOException {
    port = FreePorts.one();
    StatusEvents.watch(vertx, Duration.ofSeconds(30)).onComplete(ctx.succeeding(watcher -> {
      events = watcher;
      ctx.completeNow();
    }));
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void kill9IsDetectedRestartedAndReadyAgainWithEveryStatePublished(Vertx vertx,
      VertxTestContext ctx) throws Exception {
    long[] killedAt = new long[1];
    long[] firstPid = new long[1];
    vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3)))
        .compose(id -> events.next("READY")
            .compose(ready -> {
              firstPid[0] = ready.getLong("pid");
              ctx.verify(() -> {
                assertEquals(0, ready.getInteger("generation"));
                assertEquals("cpu:0", ready.getString("device"));
              });
              killedAt[0] = System.nanoTime();
              ProcessHandle.of(firstPid[0]).orElseThrow().destroyForcibly();
              return events.next("UNHEALTHY");
            })
            .compose(unhealthy -> {
              long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt[0]);
              ctx.verify(() -> {
                assertTrue(detectedMs < 2 * INTERVAL.toMillis(), "detected in " + detectedMs + " ms");
                assertEquals("process exited with code 137", unhealthy.getString("detail"));
              });
              return events.next("RESTARTING");
            })
            .compose(restarting -> {
              ctx.verify(() -> assertEquals(1, restarting.getInteger("generation")));
              return events.next("READY");
            })
            .compose(again -> {
              ctx.verify(() -> {
                assertEquals(1, again.getInteger("generation"));
                assertNotEquals(firstPid[0], again.getLong("pid"));
              });
              return vertx.undeploy(id).compose(v -> events.next("STOPPED")).map(again);
            }))
        .onComplete(ctx.succeeding(again -> ctx.verify(() -> {
          assertEquals(List.of("STARTING", "READY", "UNHEALTHY", "RESTARTING", "READY", "STOPPED"),
              events.states());
          assertFalse(alive(again.getLong("pid")));
          ctx.completeNow();
        })));
  }

  @Test
  void engineThatExitsBeforeReadyFailsTheStartWithExitCodeAndLogTail(Vertx vertx,
      VertxTestContext ctx) throws Exception {
    EngineVerticle engine = new EngineVerticle(spec(List.of("--say", "boom: weights missing",
        "--exit-after-ms", "0", "--exit-code", "3"), Duration.ofSeconds(30), 3));
    Failures.of(vertx.deployVerticle(engine))
        .compose(failure -> {
          ctx.verify(() -> {
            String message = failure.getMessage();
            assertTrue(message.startsWith("engine 0 (decode, 127.0.0.1:" + port + ", cpu:0) exited"
                + " with code 3 before it was ready"), message);
            assertTrue(message.contains("  | boom: weights missing"), message);
            assertEquals(3, ((EngineStartException) failure).exitCode());
          });
          return events.next("FAILED");
        })
        .onComplete(ctx.succeeding(failed -> ctx.verify(() -> {
          assertTrue(Files.readString(engine.spec().logFile()).contains("boom: weights missing"));
          ctx.completeNow();
        })));
  }

  @Test
  void engineNeverReadyFailsAtTheDeadlineAndIsKilled(Vertx vertx, VertxTestContext ctx)
      throws Exception {
    EngineVerticle engine = new EngineVerticle(spec(List.of("--ready-after-ms", "60000"),
        Duration.ofMillis(2500), 3));
    long t0 = System.nanoTime();
    Failures.of(vertx.deployVerticle(engine)).onComplete(ctx.succeeding(failure -> ctx.verify(() -> {
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      String message = failure.getMessage();
      assertTrue(message.startsWith("engine 0 (decode, 127.0.0.1:" + port + ", cpu:0) was not ready"
          + " after 2.5 s (GET /v1/models never answered 200"), message);
      assertTrue(ms < 8000, "failed at the deadline, not later: " + ms + " ms");
      assertFalse(alive(pidFromLog(engine.spec().logFile())), "no process left");
      ctx.completeNow();
    })));
  }

  @Test
  void unresponsiveEngineIsRestarted(Vertx vertx, VertxTestContext ctx) throws Exception {
    long[] frozen = new long[1];
    vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3)))
        .compose(id -> events.next("READY"))
        .compose(ready -> {
          frozen[0] = ready.getLong("pid");
          return vertx.executeBlocking(() -> new ProcessBuilder("kill", "-STOP",
              Long.toString(frozen[0])).start().waitFor());
        })
        .compose(stopped -> events.next("UNHEALTHY"))
        .compose(unhealthy -> {
          ctx.verify(() -> assertTrue(unhealthy.getString("detail").startsWith("2 health probes failed"),
              unhealthy.getString("detail")));
          return events.next("RESTARTING");
        })
        .compose(restarting -> events.next("READY"))
        .onComplete(ctx.succeeding(ready -> ctx.verify(() -> {
          assertNotEquals(frozen[0], ready.getLong("pid"));
          assertFalse(alive(frozen[0]), "the frozen process was killed after the grace period");
          ctx.completeNow();
        })));
  }

  /**
   * Also: the engine's deaths reset the watcher's probe connections, and nothing logs that as a
   * bare "ERROR ConnectionBase - Connection reset" (Vert.x did, twice per run of this test).
   */
  @Test
  void crashLoopGivesUpAfterTheRestartLimit(Vertx vertx, VertxTestContext ctx) throws Exception {
    stderr = StandardErrorCapture.start();
    vertx.deployVerticle(new EngineVerticle(spec(List.of("--exit-after-ms", "1500",
            "--exit-code", "9"), Duration.ofSeconds(30), 1)))
        .compose(id -> events.next("FAILED"))
        .onComplete(ctx.succeeding(failed -> ctx.verify(() -> {
          assertEquals("gave up after 1 restarts; last: exited with code 9", failed.getString("detail"));
          assertEquals(List.of("STARTING", "READY", "UNHEALTHY", "RESTARTING", "READY", "UNHEALTHY",
              "FAILED"), events.states());
          String logged = stderr.text();
          assertFalse(logged.contains("ConnectionBase"), logged);
          ctx.completeNow();
        })));
  }

  @AfterEach
  void restoreStandardError() {
    if (stderr != null) {
      stderr.close();
      stderr = null;
    }
  }

  @Test
  void controlAddressAnswersStatusAndRestarts(Vertx vertx, VertxTestContext ctx) throws Exception {
    String address = Addresses.DEFAULT.engineControl(0);
    vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3)))
        .compose(id -> events.next("READY"))
        .compose(ready -> vertx.eventBus().<JsonObject>request(address, "status"))
        .compose(status -> {
          ctx.verify(() -> {
            assertEquals("READY", status.body().getString("state"));
            assertEquals("http://127.0.0.1:" + port, status.body().getString("url"));
          });
          return vertx.eventBus().request(address, new JsonObject().put("action", "restart"));
        })
        .compose(accepted -> events.next("RESTARTING"))
        .compose(restarting -> Failures.of(vertx.eventBus().request(address, "restart")))
        .compose(busy -> {
          ctx.verify(() -> assertEquals(409, ((ReplyException) busy).failureCode()));
          return events.next("READY");
        })
        .compose(ready -> {
          ctx.verify(() -> assertEquals(1, ready.getInteger("generation")));
          return Failures.of(vertx.eventBus().request(address, "explode"));
        })
        .onComplete(ctx.succeeding(unknown -> ctx.verify(() -> {
          assertEquals(400, ((ReplyException) unknown).failureCode());
          ctx.completeNow();
        })));
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
    boolean[] restartedSeen = {false};
    vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.engineLoad(), msg -> {
      LoadReport r = LoadReport.fromJson(msg.body());
      reports.add(r);
      ctx.verify(() -> assertFalse(r.generation() == 0 && restartedSeen[0],
          "a report of generation 0 after generation 1 started"));
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
        restartedSeen[0] = true;
        restarted.flag();
      }
    });
    vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.engineStatus(), msg -> {
      if (msg.body().getString("state").equals("READY") && pid[0] == 0) {
        pid[0] = msg.body().getLong("pid");
      }
    });
    vertx.deployVerticle(new EngineVerticle(spec(List.of("--running", "2", "--waiting", "9"),
        Duration.ofSeconds(30), 3, Duration.ofMillis(100)))).onFailure(ctx::failNow);
  }

  @Test
  void noLoadReportsWhenTheIntervalIsZeroOrTheEngineIsStopped(Vertx vertx, VertxTestContext ctx)
      throws Exception {
    List<JsonObject> reports = new CopyOnWriteArrayList<>();
    vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.engineLoad(), msg -> reports.add(msg.body()));
    vertx.deployVerticle(new EngineVerticle(spec(List.of(), Duration.ofSeconds(30), 3,
            Duration.ZERO)))
        .compose(id -> events.next("READY")
            .compose(ready -> vertx.timer(500))
            .compose(t -> {
              ctx.verify(() -> assertEquals(List.of(), reports, "interval 0 turns reporting off"));
              return vertx.undeploy(id);
            }))
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void stoppedEngineReportsNoMoreLoad(Vertx vertx, VertxTestContext ctx) throws Exception {
    List<JsonObject> reports = new CopyOnWriteArrayList<>();
    Promise<String> deployed = Promise.promise();
    vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.engineLoad(), msg -> {
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
  }

  private static long pidFromLog(Path log) throws IOException {
    return Files.readAllLines(log).stream().filter(l -> l.startsWith("fake engine pid "))
        .map(l -> Long.parseLong(l.split(" ")[3])).findFirst().orElseThrow();
  }
}
