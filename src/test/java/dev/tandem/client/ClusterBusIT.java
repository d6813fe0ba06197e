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
import java.util.concurrent.CompletableFuture;
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
 * {@code tandem router --cluster} (fleets {@code tandem} and {@code blue}, the tiny model; fleet
 * tandem has one builtin engine, fleet blue one of its own and one on host {@code 127.0.0.2} that
 * a {@code tandem node --fleet blue} JVM runs as its child; a new router's adoption of a node's
 * engines is NodeEnginesTest's and bench/cluster.sh's), {@link BusClientApp}, a Vert.x
 * application that is not Tandem, using {@link TandemBusClient}, and a third router started with
 * {@code --attach} (no engines of its own: it serves fleet tandem's). All use the jar's
 * cluster.xml with a cluster name and port of this test's own ({@link TestCluster}).
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
  static JvmProcess node;
  static Path hz;
  static List<String> jvm;
  /** The host the node serves: a loopback address the router's own engines do not use. */
  static final String NODE_HOST = "127.0.0.2";
  static int enginePortNode;
  static int routerPortC;
  static int routerPortA;
  static int routerPortB;
  static int enginePortA;
  static int enginePortB;

  @BeforeAll
  static void startTheCluster() throws Exception {
    hz = TestCluster.config(dir.resolve("hz"), FreePorts.of(1)[0]);
    int[] ports = FreePorts.of(6);
    routerPortC = ports[4];
    routerPortA = ports[0];
    enginePortA = ports[1];
    routerPortB = ports[2];
    enginePortB = ports[3];
    enginePortNode = ports[5];
    jvm = new ArrayList<>(TestCluster.fastJvmOptions());
    // The first member starts alone; the others join it (members that start together may not).
    routerA = router("a", "tandem", hz, routerPortA, enginePortA, jvm);
    // Router A is a member of the cluster once its supervisor starts its engine: the others
    // join it while that engine starts.
    routerA.awaitContaining("starting 1 builtin engine", 60_000);
    node = node();
    List<String> appJvm = new ArrayList<>(jvm);
    appJvm.add("-Dvertx.hazelcast.config=" + hz);
    app = JvmProcess.start(TandemJar.probeCommand("256m", BusClientApp.class), appJvm,
        dir.resolve("app.log"));
    attached = JvmProcess.start(TandemJar.command("256m", "router", TinyModel.shared().toString(),
        "--cluster", "--cluster-config", hz.toString(), "--cluster-host", "127.0.0.1", "--attach",
        "--router-mode", "round-robin", "--router-port", Integer.toString(routerPortC)), jvm,
        dir.resolve("router-c.log"));
    // Router B places its endpoint on 127.0.0.2 on the node: the node has announced itself first.
    node.await("tandem node", 60_000);
    routerB = router("b", "blue", hz, routerPortB, enginePortB, jvm, "--endpoint-hosts",
        "127.0.0.1," + NODE_HOST, "--endpoint-ports", Integer.toString(enginePortB),
        Integer.toString(enginePortNode));
    app.await("READY", 60_000);
    awaitReady(routerA, routerPortA);
    awaitReady(routerB, routerPortB);
    awaitReady(attached, routerPortC);
  }

  private static JvmProcess node() throws IOException {
    return JvmProcess.start(TandemJar.command("256m", "node", "--cluster", "--cluster-config",
        hz.toString(), "--cluster-host", "127.0.0.1", "--fleet", "blue", "--hosts", NODE_HOST,
        "--log-dir", dir.resolve("logs-node").toString()), jvm, dir.resolve("node.log"));
  }

  @AfterAll
  static void stopAll() throws InterruptedException {
    for (JvmProcess p : new JvmProcess[] {app, attached, routerB, node, routerA}) {
      if (p != null) {
        p.close();
      }
    }
  }

  /** A router of {@code fleet}; its endpoints: {@code endpoints}, else one on {@code enginePort}. */
  private static JvmProcess router(String name, String fleet, Path hz, int port, int enginePort,
      List<String> jvm, String... endpoints) throws IOException {
    List<String> args = new ArrayList<>(List.of("router", TinyModel.shared().toString(),
        "--cluster", "--cluster-config", hz.toString(), "--cluster-host", "127.0.0.1",
        "--fleet", fleet, "--router-mode", "round-robin", "--router-port", Integer.toString(port),
        "--log-dir", dir.resolve("logs-" + name).toString(), "--engine-jvm-opts=-Xmx256m",
        "--health-interval", "0.5", "--load-report-interval", "0.25", "--stop-grace", "3"));
    args.addAll(endpoints.length > 0 ? List.of(endpoints)
        : List.of("--endpoint-ports", Integer.toString(enginePort)));
    return JvmProcess.start(TandemJar.command("256m", args.toArray(String[]::new)), jvm,
        dir.resolve("router-" + name + ".log"));
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
    assertEquals(List.of(enginePortB, enginePortNode), enginePorts(routerPortB));
    double blueBefore = blueRequests();
    double defaultBefore = metric(enginePortA, "tandem_engine_requests_received_total");
    JsonObject body = new JsonObject().put("prompt", "Blue").put("max_tokens", 4)
        .put("temperature", 0);
    app.send("whole blue " + body.encode());
    JsonObject answer = new JsonObject(app.await("WHOLE", 60_000));
    assertEquals(1, answer.getJsonArray("choices").size());
    assertEquals(blueBefore + 1, blueRequests());
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

  /** Engine 1 of fleet blue runs under the node: the node's child, not the router's. */
  @Test
  @Order(6)
  void aNodesEnginesAreItsChildrenAndServeTheFleet() throws Exception {
    assertEquals(node.pid(), parentOf(enginePid(routerPortB, 1)), "the node's engine");
    assertEquals(routerB.pid(), parentOf(enginePid(routerPortB, 0)), "the router's own engine");
    double nodeBefore = metric(NODE_HOST, enginePortNode, "tandem_engine_requests_received_total");
    double blueBefore = blueRequests();
    sixAtOnceToFleetBlue("Spread");
    assertEquals(blueBefore + 6, blueRequests());
    assertTrue(metric(NODE_HOST, enginePortNode, "tandem_engine_requests_received_total")
        > nodeBefore, "the node's engine served some of six concurrent requests");
  }

  /**
   * kill -9 of the node: its engine goes with it, the router takes it out of rotation within
   * 5 s and keeps answering from its own engine; no request is lost meanwhile.
   */
  @Test
  @Order(7)
  void aKilledNodesEnginesLeaveTheRotationWithinFiveSeconds() throws Exception {
    long enginePid = enginePid(routerPortB, 1);
    JsonObject body = new JsonObject().put("prompt", "Meanwhile").put("max_tokens", 8)
        .put("temperature", 0);
    List<Integer> statuses = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.atomic.AtomicBoolean go = new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread load = new Thread(() -> {
      while (go.get()) {
        statuses.add(send(postRequest(routerPortB, body.encode())).statusCode());
      }
    }, "requests during the kill");
    load.start();
    Thread.sleep(500);
    long killedAt = System.nanoTime();
    node.kill();
    waitUntil(() -> !"READY".equals(engineState(routerPortB, 1)), 10_000,
        "the node's engine to leave the rotation");
    long outMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    waitUntil(() -> ProcessHandle.of(enginePid).map(p -> !p.isAlive()).orElse(true), 10_000,
        "the node's engine process to end with it");
    double before = metric(enginePortB, "tandem_engine_requests_received_total");
    Thread.sleep(1000);
    go.set(false);
    load.join(30_000);
    for (int i = 0; i < 4; i++) {
      assertEquals(200, post(routerPortB, "/v1/completions", body.encode()).statusCode());
    }
    assertTrue(outMs <= 5000, "out of rotation " + outMs + " ms after the kill");
    assertTrue(statuses.size() > 3, "requests ran during the kill: " + statuses);
    assertTrue(statuses.stream().allMatch(code -> code == 200), "every request answered: "
        + statuses);
    assertTrue(metric(enginePortB, "tandem_engine_requests_received_total") >= before + 4,
        "the router's own engine served what came after");
    assertTrue(engineDetail(routerPortB, 1).contains("node"), engineDetail(routerPortB, 1));
  }

  /** The node is back (a new process): the supervisor starts the engine there again. */
  @Test
  @Order(8)
  void aReturningNodeGetsItsEnginesBack() throws Exception {
    node = node();
    waitUntil(() -> "READY".equals(engineState(routerPortB, 1)), 90_000,
        "the engine to be READY again on the new node");
    assertEquals(node.pid(), parentOf(enginePid(routerPortB, 1)));
    double nodeBefore = metric(NODE_HOST, enginePortNode, "tandem_engine_requests_received_total");
    sixAtOnceToFleetBlue("Back");
    assertTrue(metric(NODE_HOST, enginePortNode, "tandem_engine_requests_received_total")
        > nodeBefore, "the node's engine is back in rotation");
  }

  /** Six concurrent 24-token completions to router B (so that both engines get some); all 200. */
  private static void sixAtOnceToFleetBlue(String prompt) throws Exception {
    JsonObject body = new JsonObject().put("prompt", prompt).put("max_tokens", 24)
        .put("temperature", 0).put("debug_config", new JsonObject().put("ignore_eos", true));
    List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      all.add(HTTP.sendAsync(postRequest(routerPortB, body.encode()),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> f : all) {
      assertEquals(200, f.get(60, TimeUnit.SECONDS).statusCode());
    }
  }

  private static JsonObject fleetEngine(int routerPort, int id) {
    JsonArray engines = new JsonObject(get(routerPort, "/fleet").body()).getJsonArray("engines");
    for (int i = 0; i < engines.size(); i++) {
      if (engines.getJsonObject(i).getInteger("id") == id) {
        return engines.getJsonObject(i);
      }
    }
    throw new AssertionError("no engine " + id + " in " + engines);
  }

  private static long enginePid(int routerPort, int id) {
    Long pid = fleetEngine(routerPort, id).getLong("pid");
    assertTrue(pid != null, "engine " + id + " has a pid: " + fleetEngine(routerPort, id));
    return pid;
  }

  /** The engine's state as the router's registry has it. */
  private static String engineState(int routerPort, int id) {
    return adminEngine(routerPort, id).getString("state");
  }

  private static String engineDetail(int routerPort, int id) {
    return String.valueOf(adminEngine(routerPort, id).getString("detail"));
  }

  private static JsonObject adminEngine(int routerPort, int id) {
    JsonArray engines = new JsonObject(get(routerPort, "/admin/engines").body())
        .getJsonArray("engines");
    for (int i = 0; i < engines.size(); i++) {
      if (engines.getJsonObject(i).getInteger("id") == id) {
        return engines.getJsonObject(i);
      }
    }
    throw new AssertionError("no engine " + id + " in " + engines);
  }

  private static long parentOf(long pid) {
    return ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid)
        .orElseThrow(() -> new AssertionError("process " + pid + " has no parent (or is gone)"));
  }

  /** Requests fleet blue's two engines received, the router's own and the node's. */
  private static double blueRequests() {
    return metric(enginePortB, "tandem_engine_requests_received_total")
        + metric(NODE_HOST, enginePortNode, "tandem_engine_requests_received_total");
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
    return metric("127.0.0.1", port, name);
  }

  private static double metric(String host, int port, String name) {
    Map<String, Double> samples = PrometheusSamples.parse(get(host, port, "/metrics").body());
    return samples.getOrDefault(name, 0.0);
  }

  private static HttpResponse<String> get(int port, String path) {
    return get("127.0.0.1", port, path);
  }

  private static HttpResponse<String> get(String host, int port, String path) {
    return send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
        .timeout(Duration.ofSeconds(10)).build());
  }

  private static HttpResponse<String> post(int port, String path, String body) {
    return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(60)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
  }

  private static HttpRequest postRequest(int port, String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/completions"))
        .timeout(Duration.ofSeconds(60)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
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
