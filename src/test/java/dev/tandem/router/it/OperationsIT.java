package dev.tandem.router.it;

import static dev.tandem.config.RouterOptions.ACCESS_LOG;
import static dev.tandem.config.RouterOptions.ADMIN_KEY_FILE;
import static dev.tandem.config.RouterOptions.API_KEY_FILE;
import static dev.tandem.config.RouterOptions.MAX_CONCURRENT;
import static dev.tandem.config.RouterOptions.MAX_QUEUE;
import static dev.tandem.config.RouterOptions.QUEUE_TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.FreePorts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operating a fleet of real builtin engines (round-robin, 2 engines, tiny model) through the
 * router: keys, admission control under a burst, per-key token limits, latency histograms that
 * move, drain (with the drained engine frozen by SIGSTOP), resume, an engine added at runtime
 * and one removed, and the dashboard in a real headless Chromium. The tests run in order on one
 * fleet (engines are the slow part to start).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperationsIT {

  static final String USER = "sk-ops-user-5b8f0e2a4c6d1379";
  static final String SMALL = "sk-ops-small-0d2e4f6a8b1c3579";
  static final String ADMIN = "sk-ops-admin-7e9a1b3c5d2f4680";

  @TempDir static Path dir;
  static OpsFleet fleet;

  @BeforeAll
  static void start() throws Exception {
    Path keys = Files.writeString(dir.resolve("api-keys"),
        USER + " name=user\n" + SMALL + " name=small tpm=300\n");
    Path admin = Files.writeString(dir.resolve("admin-keys"), ADMIN + " name=ops\n");
    fleet = new OpsFleet(dir, 2, c -> c.set(API_KEY_FILE, keys.toString())
        .set(ADMIN_KEY_FILE, admin.toString()).set(MAX_CONCURRENT, 4).set(MAX_QUEUE, 4)
        .set(QUEUE_TIMEOUT, Duration.ofSeconds(60))
        .set(ACCESS_LOG, dir.resolve("access.jsonl").toString()));
  }

  @AfterAll
  static void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  static String errorCode(HttpResponse<String> r) {
    return new JsonObject(r.body()).getJsonObject("error").getString("code");
  }

  @Test
  @Order(1)
  void noKeyOrAWrongKeyIs401AUserKeyCannotOpenTheAdminRoutesAndProbesAreOpen() {
    HttpResponse<String> none = fleet.complete(null, 4);
    HttpResponse<String> wrong = fleet.complete("sk-guess", 4);
    assertEquals(401, none.statusCode());
    assertEquals("invalid_api_key", errorCode(none));
    assertEquals(401, wrong.statusCode());
    assertEquals("invalid_api_key", errorCode(wrong));
    assertEquals(200, fleet.complete(USER, 4).statusCode());
    for (String path : List.of("/admin/engines", "/metrics", "/dashboard/", "/fleet")) {
      HttpResponse<String> r = fleet.get(path, USER);
      assertEquals(403, r.statusCode(), path + ": " + r.body());
      assertEquals(401, fleet.get(path, null).statusCode(), path);
      assertEquals(200, fleet.get(path, ADMIN).statusCode(), path);
    }
    assertEquals(403, fleet.post("/admin/engines/0/drain", USER, new JsonObject()).statusCode());
    JsonObject words = new JsonObject().put("prompt", "count me");
    assertEquals(401, fleet.post("/tokenize", null, words).statusCode(), "/tokenize is the API's");
    assertEquals(401, fleet.post("/detokenize", "sk-guess", new JsonObject()).statusCode());
    assertEquals(200, fleet.post("/tokenize", USER, words).statusCode());
    assertEquals(200, fleet.get("/health", null).statusCode());
    assertEquals(200, fleet.get("/ready", null).statusCode());
  }

  @Test
  @Order(2)
  void fortyConcurrentLongRequestsAgainstFourSlotsAndFourPlacesAre200Or429AndLeaveNothingBehind()
      throws Exception {
    Map<String, Double> before = fleet.metrics(ADMIN);
    List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      burst.add(fleet.completeAsync(USER, 160));
    }
    int ok = 0;
    int limited = 0;
    for (CompletableFuture<HttpResponse<String>> f : burst) {
      HttpResponse<String> r = f.get(150, TimeUnit.SECONDS);
      if (r.statusCode() == 200) {
        ok++;
        assertEquals(160, new JsonObject(r.body()).getJsonObject("usage").getInteger("completion_tokens"),
            "an admitted request is served whole");
      } else {
        limited++;
        assertEquals(429, r.statusCode(), r.body());
        assertEquals("rate_limit_exceeded", errorCode(r));
        assertTrue(r.headers().firstValue("Retry-After").isPresent(), "429 without Retry-After");
      }
    }
    assertTrue(ok >= 8, "4 running + 4 queued are admitted, got " + ok);
    assertTrue(limited >= 1, "a burst of 40 against 8 places is refused in part");
    // Every counter back to zero: admission, in flight per engine, open reservations.
    TandemFleet.waitUntil(() -> {
      Map<String, Double> m = fleet.metrics(ADMIN);
      return m.get("tandem_admission_running") == 0 && m.get("tandem_admission_queued") == 0
          && OpsFleet.sum(m, "tandem_inflight{") == 0 && m.get("tandem_reservations_open") == 0;
    }, 5_000, "every counter back to zero");
    JsonObject admin = new JsonObject(fleet.get("/admin/engines", ADMIN).body());
    assertEquals(0, admin.getInteger("inFlightTotal"));
    assertEquals(0, admin.getJsonObject("admission").getInteger("running"));
    assertEquals(0, admin.getJsonObject("admission").getInteger("queued"));
    // The histograms moved with the load, and the refusals are counted by cause.
    Map<String, Double> after = fleet.metrics(ADMIN);
    for (String h : List.of("tandem_router_ttft_seconds_count", "tandem_router_e2e_seconds_count",
        "tandem_router_tpot_seconds_count", "tandem_router_queue_seconds_count")) {
      assertEquals(ok, OpsFleet.sum(after, h) - OpsFleet.sum(before, h), 0.0, h);
    }
    assertTrue(OpsFleet.sum(after, "tandem_router_e2e_seconds_bucket{engine=\"0\"")
        > OpsFleet.sum(before, "tandem_router_e2e_seconds_bucket{engine=\"0\""), "buckets moved");
    assertEquals(limited, OpsFleet.sum(after, "tandem_router_rejected_total{cause=\"queue_")
        - OpsFleet.sum(before, "tandem_router_rejected_total{cause=\"queue_"), 0.0);
  }

  @Test
  @Order(3)
  void aKeysTokensPerMinuteAreEnforced() {
    HttpResponse<String> first = fleet.complete(SMALL, 200);
    assertEquals(200, first.statusCode(), first.body());
    assertEquals("300", first.headers().firstValue("x-ratelimit-limit-tokens").orElseThrow());
    HttpResponse<String> second = fleet.complete(SMALL, 200);
    assertEquals(429, second.statusCode(), second.body());
    assertEquals("rate_limit_exceeded", errorCode(second));
    assertEquals("tokens", new JsonObject(second.body()).getJsonObject("error").getString("type"));
    assertTrue(second.headers().firstValue("Retry-After").isPresent());
    assertEquals(200, fleet.complete(USER, 200).statusCode(), "other keys are not affected");
  }

  /**
   * --access-log: a JSON line for every request the tests above sent, however it ended (401,
   * 200, 429), with its key's name, ids, tokens and times; a client's X-Request-Id comes back on
   * the answer and is kept beside the router's id.
   */
  @Test
  @Order(4)
  void theAccessLogHasALineForEveryRequestWithTheClientsOwnId() throws Exception {
    io.vertx.core.eventbus.Message<Object> overBus = fleet.vertx.eventBus().request(
            fleet.config.routerOptions().addresses().completions(), OpsFleet.completion(3),
            new io.vertx.core.eventbus.DeliveryOptions().setSendTimeout(60_000)
                .addHeader(dev.tandem.router.access.AccessControl.BUS_HEADER, USER)
                .addHeader("x-request-id", "bus-7"))
        .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertEquals(3, ((JsonObject) overBus.body()).getJsonObject("usage").getInteger("completion_tokens"));
    HttpResponse<String> traced = fleet.send(fleet.request("/v1/completions", USER)
        .header("content-type", "application/json").header("X-Request-Id", "trace-42")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(OpsFleet.completion(5).encode()))
        .build());
    assertEquals(200, traced.statusCode(), traced.body());
    assertEquals("trace-42", traced.headers().firstValue("x-request-id").orElse(null));
    String id = new JsonObject(traced.body()).getString("id");
    Path log = dir.resolve("access.jsonl");
    List<JsonObject> lines = new ArrayList<>();
    TandemFleet.waitUntil(() -> {
      lines.clear();
      try {
        Files.readAllLines(log).forEach(l -> lines.add(new JsonObject(l)));
      } catch (java.io.IOException e) {
        return false;
      }
      return lines.stream().anyMatch(l -> "trace-42".equals(l.getString("request_id")));
    }, 5_000, "the traced request's line in " + log);
    JsonObject tracedLine = lines.stream().filter(l -> "trace-42".equals(l.getString("request_id")))
        .findFirst().orElseThrow();
    assertEquals(id, tracedLine.getString("id"));
    assertEquals("user", tracedLine.getString("key"));
    assertEquals(200, tracedLine.getInteger("status"));
    assertEquals(5, tracedLine.getInteger("completion_tokens"));
    assertTrue(tracedLine.getInteger("prompt_tokens") > 0, tracedLine.encode());
    assertTrue(tracedLine.getInteger("engine") >= 0, tracedLine.encode());
    assertTrue(tracedLine.getDouble("total_ms") >= tracedLine.getDouble("ttft_ms"), tracedLine.encode());
    JsonObject busLine = lines.stream().filter(l -> "bus-7".equals(l.getString("request_id")))
        .findFirst().orElseThrow(() -> new AssertionError("no line for the bus request"));
    assertEquals("bus", busLine.getString("transport"));
    assertEquals("user", busLine.getString("key"));
    assertEquals(3, busLine.getInteger("completion_tokens"));
    lines.remove(busLine);
    for (JsonObject line : lines) {
      assertEquals("http", line.getString("transport"), line.encode());
      assertEquals("completions", line.getString("api"), line.encode());
      assertNotNull(java.time.Instant.parse(line.getString("time")), line.encode());
      assertTrue(line.containsKey("status") && line.containsKey("total_ms"), line.encode());
    }
    assertEquals(2, lines.stream().filter(l -> l.getInteger("status") == 401
        && "invalid_api_key".equals(l.getJsonObject("error").getString("code"))
        && !l.containsKey("key")).count(), "the two requests without a good key");
    long answered = lines.stream().filter(l -> "user".equals(l.getString("key"))
        && l.getInteger("status") == 200 && Integer.valueOf(160).equals(l.getInteger("completion_tokens")))
        .count();
    long limited = lines.stream().filter(l -> l.getInteger("status") == 429
        && "rate_limit_exceeded".equals(l.getJsonObject("error").getString("code"))).count();
    assertTrue(answered >= 8, "the burst's answers: " + answered);
    assertTrue(limited >= 2, "the burst's and the small key's 429s: " + limited);
    assertTrue(lines.stream().anyMatch(l -> "small".equals(l.getString("key"))
        && l.getInteger("status") == 429), "the small key's refusal");
  }

  @Test
  @Order(4)
  void aDrainedEngineFrozenBySigstopTakesNoRequestsAndResumeBringsItBack() throws Exception {
    JsonObject drained = new JsonObject(fleet.post("/admin/engines/1/drain", ADMIN, new JsonObject()).body());
    assertTrue(drained.getBoolean("drained"), drained.encode());
    long pid = fleet.pid(1, ADMIN);
    OpsFleet.signal(pid, "STOP");
    try {
      double servedBy1 = OpsFleet.sum(fleet.metrics(ADMIN), "tandem_router_e2e_seconds_count{engine=\"1\"");
      for (int i = 0; i < 10; i++) {
        HttpResponse<String> r = fleet.complete(USER, 16);
        assertEquals(200, r.statusCode(), "request " + i + " with engine 1 drained and frozen: " + r.body());
      }
      assertEquals(servedBy1, OpsFleet.sum(fleet.metrics(ADMIN),
          "tandem_router_e2e_seconds_count{engine=\"1\""), "engine 1 got nothing");
    } finally {
      OpsFleet.signal(pid, "CONT");
    }
    JsonObject resumed = new JsonObject(fleet.post("/admin/engines/1/resume", ADMIN, new JsonObject()).body());
    assertFalse(resumed.getBoolean("drained"));
    // Least-loaded: until engine 1's next load report (every second), the one it sent before the
    // drain may still show a request running there, and engine 0 wins every tie meanwhile.
    String servedBy1 = "tandem_router_e2e_seconds_count{engine=\"1\"";
    double before = OpsFleet.sum(fleet.metrics(ADMIN), servedBy1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    boolean served = false;
    while (!served && System.nanoTime() < deadline) {
      assertEquals(200, fleet.complete(USER, 8).statusCode());
      served = OpsFleet.sum(fleet.metrics(ADMIN), servedBy1) > before;
    }
    assertTrue(served, "engine 1 serves again within 5 s of its resume");
  }

  @Test
  @Order(5)
  void anEngineAddedAtRuntimeServesRequests() throws Exception {
    int port = FreePorts.of(1)[0];
    HttpResponse<String> added = fleet.post("/admin/engines", ADMIN, new JsonObject().put("port", port));
    assertEquals(201, added.statusCode(), added.body());
    JsonObject status = new JsonObject(added.body());
    assertEquals(2, status.getInteger("id"));
    assertEquals("READY", status.getString("state"));
    TandemFleet.waitUntil(() -> fleet.engines(ADMIN).size() == 3, 5_000, "router to see engine 2");
    for (int i = 0; i < 6; i++) {
      assertEquals(200, fleet.complete(USER, 8).statusCode());
    }
    assertTrue(OpsFleet.sum(fleet.metrics(ADMIN), "tandem_router_e2e_seconds_count{engine=\"2\"") > 0,
        "the added engine served requests");
  }

  @Test
  @Order(6)
  void theDashboardShowsEveryEngineAndItsChartsMoveWhileLoadRuns() throws Exception {
    DashboardCheck.run(fleet, ADMIN, USER);
  }

  @Test
  @Order(7)
  void anEngineRemovedAtRuntimeIsStoppedAndForgotten() throws Exception {
    long pid = fleet.pid(2, ADMIN);
    HttpResponse<String> removed = fleet.delete("/admin/engines/2", ADMIN);
    assertEquals(200, removed.statusCode(), removed.body());
    assertEquals("STOPPED", new JsonObject(removed.body()).getJsonObject("removed").getString("state"));
    TandemFleet.waitUntil(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), 10_000,
        "engine 2's process to end");
    JsonArray engines = fleet.engines(ADMIN);
    assertEquals(2, engines.size(), engines.encode());
    assertFalse(fleet.get("/fleet", ADMIN).body().contains("\"id\":2"));
    for (int i = 0; i < 4; i++) {
      assertEquals(200, fleet.complete(USER, 8).statusCode());
    }
    assertEquals(404, fleet.delete("/admin/engines/2", ADMIN).statusCode());
    assertNotNull(fleet.get("/admin/engines", ADMIN).body());
  }
}
