package dev.tandem.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.FreePorts;
import dev.tandem.testing.PrometheusSamples;
import dev.tandem.testing.TandemJar;
import dev.tandem.testing.TestCluster;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tandem on a Vert.x cluster, on loopback, every party a JVM of its own: two routers started as
 * {@code tandem router --cluster} (fleets {@code tandem} and {@code blue}, one builtin engine each,
 * the tiny model) and {@link BusClientApp}, a Vert.x application that is not Tandem, using
 * {@link TandemBusClient}, and a third router started with {@code --attach} (no engines of its
 * own: it serves fleet tandem's). All use the jar's cluster.xml with a cluster name and port of
 * this test's own ({@link TestCluster}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterBusIT {
  @TempDir static Path dir;
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  static JvmProcess routerA;
  static JvmProcess routerB;
  static JvmProcess app;
  static JvmProcess attached;
  static int routerPortC;
  static int routerPortA;
  static int routerPortB;
  static int enginePortA;
  static int enginePortB;

  @BeforeAll
  static void startTheCluster() throws Exception {
    Path hz = TestCluster.config(dir.resolve("hz"), FreePorts.of(1)[0]);
    int[] ports = FreePorts.of(5);
    routerPortC = ports[4];
    routerPortA = ports[0];
    enginePortA = ports[1];
    routerPortB = ports[2];
    enginePortB = ports[3];
    List<String> jvm = new ArrayList<>(TestCluster.fastJvmOptions());
    // The first member starts alone; the others join it (members that start together may not).
    routerA = router("a", "tandem", hz, routerPortA, enginePortA, jvm);
    awaitReady(routerA, routerPortA);
    routerB = router("b", "blue", hz, routerPortB, enginePortB, jvm);
    List<String> appJvm = new ArrayList<>(jvm);
    appJvm.add("-Dvertx.hazelcast.config=" + hz);
    app = JvmProcess.start(TandemJar.probeCommand("256m", BusClientApp.class), appJvm,
        dir.resolve("app.log"));
    attached = JvmProcess.start(TandemJar.command("256m", "router", TinyModel.shared().toString(),
        "--cluster", "--cluster-config", hz.toString(), "--cluster-host", "127.0.0.1", "--attach",
        "--router-mode", "round-robin", "--router-port", Integer.toString(routerPortC)), jvm,
        dir.resolve("router-c.log"));
    app.await("READY", 60_000);
    awaitReady(routerB, routerPortB);
    awaitReady(attached, routerPortC);
  }

  @AfterAll
  static void stopAll() throws InterruptedException {
    for (JvmProcess p : new JvmProcess[] {app, attached, routerB, routerA}) {
      if (p != null) {
        p.close();
      }
    }
  }

  private static JvmProcess router(String name, String fleet, Path hz, int port, int enginePort,
      List<String> jvm) throws IOException {
    return JvmProcess.start(TandemJar.command("256m", "router", TinyModel.shared().toString(),
        "--cluster", "--cluster-config", hz.toString(), "--cluster-host", "127.0.0.1",
        "--fleet", fleet, "--router-mode", "round-robin", "--router-port", Integer.toString(port),
        "--log-dir", dir.resolve("logs-" + name).toString(), "--engine-jvm-opts=-Xmx256m",
        "--health-interval", "0.5", "--load-report-interval", "0.25", "--stop-grace", "3",
        "--endpoint-ports", Integer.toString(enginePort)), jvm, dir.resolve("router-" + name + ".log"));
  }

  private static void awaitReady(JvmProcess router, int port) throws InterruptedException {
    waitUntil(() -> {
      if (!router.alive()) {
        throw new AssertionError("router exited:\n" + router.output());
      }
      return get(port, "/ready").statusCode() == 200;
    }, 120_000, "router on " + port + " ready");
  }

  @Test
  @Order(1)
  void theBusAnswerIsTheHttpAnswer() throws Exception {
    JsonObject body = new JsonObject().put("prompt", "The cluster").put("max_tokens", 24)
        .put("temperature", 0.9).put("top_p", 0.9).put("seed", 4242).put("n", 2);
    app.send("whole tandem " + body.encode());
    JsonObject bus = new JsonObject(app.await("WHOLE", 60_000));
    JsonObject http = new JsonObject(post(routerPortA, "/v1/completions", body.encode()).body());
    assertEquals(http.getJsonArray("choices"), bus.getJsonArray("choices"), "bus " + bus
        + "\nhttp " + http);
    for (String count : List.of("prompt_tokens", "completion_tokens", "total_tokens")) {
      assertEquals(http.getJsonObject("usage").getInteger(count),
          bus.getJsonObject("usage").getInteger(count), count);
    }
    assertEquals(http.getString("model"), bus.getString("model"));
    assertEquals("text_completion", bus.getString("object"));
  }

  @Test
  @Order(2)
  void aSlowConsumerNeverHasMoreChunksThanItGrantedCreditFor() throws Exception {
    JsonObject body = new JsonObject().put("prompt", "Once upon a time").put("max_tokens", 40)
        .put("temperature", 0).put("debug_config", new JsonObject().put("ignore_eos", true));
    app.send("slow tandem " + body.encode());
    JsonObject report = new JsonObject(app.await("SLOW", 60_000));
    JsonObject http = new JsonObject(post(routerPortA, "/v1/completions", body.encode()).body());
    assertEquals(http.getJsonArray("choices").getJsonObject(0).getString("text"),
        report.getString("text"), "the stream carried the whole answer: " + report);
    assertTrue(report.getLong("worstOverCredit") <= 0, "chunks beyond the credit: " + report);
    assertTrue(report.getLong("mostBuffered") <= 2, "the window held: " + report);
    assertTrue(report.getInteger("chunks") >= 40, report.encode());
    // credit came a little at a time, not all at once
    assertTrue(report.getLong("granted") <= report.getLong("received") + 2, report.encode());
  }

  @Test
  @Order(3)
  void twoFleetsShareTheClusterWithoutSeeingEachOthersEngines() throws Exception {
    assertEquals(List.of(enginePortA), enginePorts(routerPortA));
    assertEquals(List.of(enginePortB), enginePorts(routerPortB));
    double blueBefore = metric(enginePortB, "tandem_engine_requests_received_total");
    double defaultBefore = metric(enginePortA, "tandem_engine_requests_received_total");
    JsonObject body = new JsonObject().put("prompt", "Blue").put("max_tokens", 4)
        .put("temperature", 0);
    app.send("whole blue " + body.encode());
    JsonObject answer = new JsonObject(app.await("WHOLE", 60_000));
    assertEquals(1, answer.getJsonArray("choices").size());
    assertEquals(blueBefore + 1, metric(enginePortB, "tandem_engine_requests_received_total"));
    assertEquals(defaultBefore, metric(enginePortA, "tandem_engine_requests_received_total"));
    app.send("whole green " + body.encode());
    assertEquals("503 no_router", app.await("FAILED", 30_000));
  }

  /**
   * The caller stops granting credit, then dies. The router, out of credit, stops reading the
   * engine; the answer is big (4 choices with logprobs) so that the socket buffers fill and the
   * engine is held, still working, until the router notices the caller is gone: its probe cannot
   * be delivered once the cluster has dropped the dead member (Hazelcast's heartbeat timeout).
   */
  /** {@code --attach}: a second router of fleet tandem, no engines of its own, serves engine A. */
  @Test
  @Order(4)
  void anAttachedRouterServesTheFleetAnotherRouterStarted() throws Exception {
    assertEquals(List.of(enginePortA), enginePorts(routerPortC));
    assertEquals(1, new JsonObject(get(routerPortA, "/fleet").body()).getJsonArray("engines")
        .size(), "the attached router started no engine");
    JsonObject body = new JsonObject().put("prompt", "Attached").put("max_tokens", 12)
        .put("temperature", 0);
    double before = metric(enginePortA, "tandem_engine_requests_received_total");
    JsonObject viaC = new JsonObject(post(routerPortC, "/v1/completions", body.encode()).body());
    JsonObject viaA = new JsonObject(post(routerPortA, "/v1/completions", body.encode()).body());
    assertEquals(viaA.getJsonArray("choices"), viaC.getJsonArray("choices"), viaC.encode());
    assertEquals(before + 2, metric(enginePortA, "tandem_engine_requests_received_total"));
  }

  @Test
  @Order(5)
  void aCallerKilledMidStreamStopsTheEnginesWork() throws Exception {
    JsonObject body = new JsonObject().put("prompt", "Go on forever").put("max_tokens", 4000)
        .put("n", 4).put("logprobs", 5).put("temperature", 0)
        .put("debug_config", new JsonObject().put("ignore_eos", true));
    app.send("hang tandem " + body.encode());
    app.await("HANGING", 60_000);
    assertTrue(metric(enginePortA, "tandem_engine_running") >= 1, "the engine is generating");
    // the bus spreads fleet tandem's requests over its two routers, A and the attached one
    assertEquals(1, inFlight(routerPortA) + inFlight(routerPortC));
    double abortedBefore = metric(enginePortA, "tandem_engine_requests_aborted_total");
    double completedBefore = metric(enginePortA, "tandem_engine_completion_tokens_total");
    long killedAt = System.nanoTime();
    app.kill();
    waitUntil(() -> metric(enginePortA, "tandem_engine_running") == 0
        && inFlight(routerPortA) + inFlight(routerPortC) == 0, 60_000, "the engine's work to stop");
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    assertEquals(abortedBefore + 1, metric(enginePortA, "tandem_engine_requests_aborted_total"),
        "the router aborted the engine request (it did not run to its end)");
    assertTrue(metric(enginePortA, "tandem_engine_completion_tokens_total") < completedBefore
        + 4 * 4000, "the engine did not generate the whole answer");
    assertTrue(ms < 45_000, "stopped " + ms + " ms after the kill");
  }

  private static List<Integer> enginePorts(int routerPort) {
    JsonArray engines = new JsonObject(get(routerPort, "/admin/engines").body())
        .getJsonArray("engines");
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < engines.size(); i++) {
      String url = engines.getJsonObject(i).getString("url");
      ports.add(Integer.parseInt(url.substring(url.lastIndexOf(':') + 1)));
    }
    return ports;
  }

  private static int inFlight(int routerPort) {
    return new JsonObject(get(routerPort, "/admin/engines").body()).getInteger("inFlightTotal");
  }

  private static double metric(int port, String name) {
    Map<String, Double> samples = PrometheusSamples.parse(get(port, "/metrics").body());
    return samples.getOrDefault(name, 0.0);
  }

  private static HttpResponse<String> get(int port, String path) {
    return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build());
  }

  private static HttpResponse<String> post(int port, String path, String body) {
    return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(60)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
  }

  private static HttpResponse<String> send(HttpRequest request) {
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(request.uri() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void waitUntil(BooleanSupplier condition, long timeoutMs, String what)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (IllegalStateException notYet) {
        // not listening yet
      }
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(50); // test thread only
    }
  }
}
