package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENDPOINT_HOSTS;
import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.config.ClusterOptions;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.fleet.NodeVerticle;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor and {@link NodeVerticle}s on one Vert.x (the bus contract is the same on a
 * cluster; ClusterBusIT runs it across JVMs): endpoints whose host a node serves go to that node,
 * a node that goes silent takes its engines out of rotation and a new one gets them back, a new
 * supervisor adopts what a node kept running, and {@code --stop-remote-engines} takes them along.
 * The engines are {@link dev.tandem.fleet.FakeEngine}s (FAKE: they only answer health and
 * metrics), endpoint 1 on host {@code localhost}, the host the nodes serve.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeEnginesTest {
  @TempDir Path dir;
  private Vertx vertx;
  private RouterConfig config;
  private final List<JsonObject> statuses = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.engineStatus(),
        m -> statuses.add(m.body()));
    int[] ports = FreePorts.of(3);
    config = new RouterConfig().set(MODEL, TinyModel.stub(dir.resolve("model")).toString())
        .set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(ROUTER_PORT, ports[2])
        .set(ENDPOINT_HOSTS, List.of("127.0.0.1", "localhost"))
        .set(ENDPOINT_PORTS, List.of(ports[0], ports[1]))
        .set(LOG_DIR, dir.resolve("router-logs").toString())
        .set(STARTUP_TIMEOUT, Duration.ofSeconds(30)).set(HEALTH_INTERVAL, Duration.ofMillis(300))
        .set(STOP_GRACE, Duration.ofSeconds(2)).set(ClusterOptions.CLUSTER, true);
  }

  @AfterEach
  void tearDown() throws Exception {
    await(vertx.close());
  }

  @Test
  void aNodeRunsTheEndpointsOfItsHostAndAReturningNodeGetsThemBack() throws Exception {
    NodeVerticle first = node("node-a");
    String firstId = await(vertx.deployVerticle(first));
    String supervisor = await(vertx.deployVerticle(supervisor(id -> List.of())));
    waitFor(() -> List.of(1).equals(first.announcement().engines()), "node-a lists engine 1");
    assertTrue(Files.exists(dir.resolve("node-a").resolve("engine-1.log")), "the node's log");
    assertTrue(Files.exists(dir.resolve("router-logs").resolve("engine-0.log")));
    assertTrue(!Files.exists(dir.resolve("router-logs").resolve("engine-1.log")));
    assertEquals(List.of("READY", "READY"), states());
    Throwable remove = awaitFailure(vertx.eventBus().request(Addresses.DEFAULT.fleetRemove(),
        new JsonObject().put("id", 1)));
    assertTrue(remove.getMessage().contains("runs on a tandem node"), remove.getMessage());

    long goneAt = System.nanoTime();
    await(vertx.undeploy(firstId)); // its engine stops; then it is silent
    waitFor(() -> statuses.stream().anyMatch(s -> s.getInteger("id") == 1
        && "UNHEALTHY".equals(s.getString("state"))
        && s.getString("detail", "").contains("node node-a is gone")), "engine 1 out of rotation");
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - goneAt);
    assertTrue(ms < 5000, "the supervisor noticed the silent node after " + ms + " ms");
    assertEquals("UNHEALTHY", states().get(1));

    NodeVerticle second = node("node-b");
    await(vertx.deployVerticle(second));
    waitFor(() -> "READY".equals(states().get(1)), "engine 1 READY on node-b");
    // the node lists an engine once its deployment completed, which is just after it is READY
    waitFor(() -> List.of(1).equals(second.announcement().engines()), "node-b lists engine 1");
    await(vertx.undeploy(supervisor));
  }

  @Test
  void aNewSupervisorAdoptsWhatTheNodeKeptRunning() throws Exception {
    NodeVerticle node = node("node-a");
    await(vertx.deployVerticle(node));
    String supervisor = await(vertx.deployVerticle(supervisor(id -> List.of())));
    long pid = fleet().getJsonObject(1).getLong("pid");
    await(vertx.undeploy(supervisor));
    // (that a node keeps them once the old router's heartbeat is silent: ClusterBusIT)
    assertEquals(List.of(1), node.announcement().engines(), "still running without a router");
    assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    await(vertx.deployVerticle(supervisor(id -> List.of())));
    assertEquals(pid, fleet().getJsonObject(1).getLong("pid"), "adopted, not restarted");
    assertEquals(List.of("READY", "READY"), states());
  }

  @Test
  void withStopRemoteEnginesTheNodeStopsThemWithTheRouter() throws Exception {
    config.set(ClusterOptions.STOP_REMOTE_ENGINES, true);
    NodeVerticle node = node("node-a");
    await(vertx.deployVerticle(node));
    String supervisor = await(vertx.deployVerticle(supervisor(id -> List.of())));
    long pid = fleet().getJsonObject(1).getLong("pid");
    await(vertx.undeploy(supervisor));
    assertEquals(List.of(), node.announcement().engines());
    assertTrue(!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid);
  }

  @Test
  void anEngineThatFailsOnItsNodeFailsTheStartNamingTheNode() throws Exception {
    await(vertx.deployVerticle(node("node-a")));
    Throwable failure = awaitFailure(vertx.deployVerticle(supervisor(id -> id == 1
        ? List.of("--say", "error: no such model", "--exit-after-ms", "300", "--exit-code", "3",
            "--ready-after-ms", "60000")
        : List.of())));
    String message = failure.getMessage();
    assertTrue(message.contains("could not be started on node node-a"), message);
    assertTrue(message.contains("exited with code 3"), message);
    assertTrue(message.contains("error: no such model"), message);
  }

  private NodeVerticle node(String id) {
    return new NodeVerticle(id, List.of("localhost"), dir.resolve(id), Addresses.DEFAULT);
  }

  private SupervisorVerticle supervisor(IntFunction<List<String>> fakeArgs) {
    return new SupervisorVerticle(config, StandInRouterVerticle.factory(),
        (model, keptChars) -> null,
        new FakeEngineProfile(fakeArgs));
  }

  private JsonArray fleet() throws Exception {
    return await(vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.fleetQuery(), ""))
        .body().getJsonArray("engines");
  }

  private List<String> states() throws Exception {
    JsonArray engines = fleet();
    return engines.stream().map(e -> ((JsonObject) e).getString("state")).toList();
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(45, TimeUnit.SECONDS);
  }

  private static Throwable awaitFailure(Future<?> future) throws Exception {
    return await(future.transform(ar -> ar.failed() ? Future.succeededFuture(ar.cause())
        : Future.failedFuture(new AssertionError("expected a failure, got " + ar.result()))));
  }

  private static void waitFor(Callable<Boolean> condition, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20); // test thread only
    }
  }
}
