package dev.tandem.router.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TandemJar;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed's two usage examples as {@code tandem router} command lines on builtin engines, each
 * a router process of its own: 2 endpoints x 1 device in round-robin mode (and one of the two
 * engines killed while it streams), and 3 endpoints x 2 devices with the prefix cache in disagg
 * mode (each engine holds its 2 PEs of a 6-PE world). Both serve exactly what one engine answers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SeedExamplesIT {

  final Path model = TinyModel.shared();
  @TempDir Path dir;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  Process router;

  @AfterEach
  void stopRouter() throws Exception {
    if (router != null) {
      router.destroy(); // SIGTERM: the router stops its engines
      if (!router.waitFor(30, TimeUnit.SECONDS)) {
        router.destroyForcibly();
      }
    }
  }

  /** {@code tandem router MODEL ARGS...}, with this test's logs and small engine heaps. */
  int startRouter(String... args) throws Exception {
    int port = FreePorts.one();
    List<String> cmd = TandemJar.command("256m", "router", model.toString(), "--router-port",
        Integer.toString(port), "--log-dir", dir.resolve("logs").toString(),
        "--engine-jvm-opts=-Xmx256m", "--health-interval", "0.5", "--stop-grace", "3s");
    cmd.addAll(List.of(args));
    router = TandemJar.process(cmd).redirectOutput(dir.resolve("router.out").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
    while (System.nanoTime() < deadline && router.isAlive()) {
      try {
        if (get(port, "/ready").statusCode() == 200) {
          return port;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("router not ready:\n" + Files.readString(dir.resolve("router.out")));
  }

  HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  String complete(int port, JsonObject body) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/v1/completions"))
        .timeout(Duration.ofSeconds(60)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.encode())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return new JsonObject(r.body()).getJsonArray("choices").getJsonObject(0).getString("text");
  }

  /** Every engine of the fleet (from the router's /fleet): port and pid. */
  JsonArray engines(int routerPort) throws Exception {
    return new JsonObject(get(routerPort, "/fleet").body()).getJsonArray("engines");
  }

  static int port(JsonObject engine) {
    return URI.create(engine.getString("url")).getPort();
  }

  static final List<String> PROMPTS = List.of("Keep talking", "The quick brown fox",
      "A longer prompt, so that the KV of many positions crosses the world. ".repeat(6));

  /** The router's answers, whole and streamed, equal those of one of its engines asked directly. */
  void answersEqualOneEngines(int port) throws Exception {
    int engine = port(engines(port).getJsonObject(engines(port).size() - 1));
    for (String prompt : PROMPTS) {
      JsonObject body = new JsonObject().put("prompt", prompt).put("max_tokens", 16)
          .put("temperature", 0);
      String direct = complete(engine, body);
      assertEquals(direct, complete(port, body), prompt);
      assertEquals(direct, complete(port, body), "again (prefix cache, if on): " + prompt);
      SseStream s = SseStream.open(http, port, body.copy().put("stream", true).encode());
      StringBuilder text = new StringBuilder();
      List<String> events = new ArrayList<>();
      while (RouterEndToEndIT.read(s, text, events) != null) {
        // reading the whole stream
      }
      assertEquals("[DONE]", events.get(events.size() - 1));
      assertEquals(direct, text.toString(), "streamed: " + prompt);
    }
  }

  @Test
  void twoEndpointsOfOneDeviceRoundRobinAndOneKilledWhileStreaming() throws Exception {
    int[] ports = FreePorts.of(2);
    int port = startRouter("--router-mode", "round-robin", "--endpoint-hosts", "127.0.0.1",
        "--endpoint-ports", Integer.toString(ports[0]), Integer.toString(ports[1]),
        "--endpoint-num-gpus", "1", "1");
    answersEqualOneEngines(port);

    List<JsonObject> bodies = new ArrayList<>();
    List<java.util.concurrent.CompletableFuture<String>> answers = new ArrayList<>();
    for (String prompt : List.of("Keep talking", "Story 2: a long way", "The quick brown fox",
        "Another day")) {
      JsonObject body = new JsonObject().put("prompt", prompt).put("max_tokens", 1000)
          .put("temperature", 0).put("debug_config", new JsonObject().put("ignore_eos", true));
      bodies.add(body);
      // all four at once: the engines batch them (batch invariance keeps each answer the same)
      answers.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try {
          return complete(port, body);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    List<String> expected = new ArrayList<>();
    for (java.util.concurrent.CompletableFuture<String> answer : answers) {
      expected.add(answer.get(60, TimeUnit.SECONDS));
    }
    List<SseStream> streams = new ArrayList<>();
    List<StringBuilder> texts = new ArrayList<>();
    List<List<String>> events = new ArrayList<>();
    for (JsonObject body : bodies) {
      streams.add(SseStream.open(http, port, body.copy().put("stream", true).encode()));
      texts.add(new StringBuilder());
      events.add(new ArrayList<>());
    }
    for (int i = 0; i < streams.size(); i++) {
      for (int k = 0; k < 3; k++) {
        assertNotNull(RouterEndToEndIT.read(streams.get(i), texts.get(i), events.get(i)));
      }
    }
    JsonObject victim = engines(port).getJsonObject(0);
    assertTrue(ProcessHandle.of(victim.getLong("pid")).orElseThrow().destroyForcibly(), "kill -9");
    for (int i = 0; i < streams.size(); i++) {
      String last = null;
      for (String e = RouterEndToEndIT.read(streams.get(i), texts.get(i), events.get(i)); e != null;
          e = RouterEndToEndIT.read(streams.get(i), texts.get(i), events.get(i))) {
        last = e;
      }
      assertEquals("[DONE]", last, "stream " + i);
      assertTrue(events.get(i).stream().noneMatch(e -> e.startsWith("{\"error\"")), "stream " + i);
      assertEquals(expected.get(i), texts.get(i).toString(), "stream " + i + " token for token");
    }
    assertTrue(get(port, "/metrics").body().lines().anyMatch(l ->
        l.startsWith("tandem_router_failovers_total") && !l.endsWith(" 0.0")), "failed over");
  }

  @Test
  void threeEndpointsOfTwoDevicesWithThePrefixCacheDisaggregated() throws Exception {
    int[] ports = FreePorts.of(3);
    int port = startRouter("--endpoint-ports", Integer.toString(ports[0]),
        Integer.toString(ports[1]), Integer.toString(ports[2]), "--endpoint-num-gpus", "2", "2", "2",
        "--enable-prefix-cache");
    JsonArray engines = engines(port);
    for (int i = 0; i < 3; i++) {
      assertEquals(2 * i, engines.getJsonObject(i).getInteger("peStart"));
      assertEquals(2, engines.getJsonObject(i).getInteger("numPes"));
    }
    answersEqualOneEngines(port);
    String prefill = get(ports[0], "/metrics").body();
    assertTrue(prefill.lines().anyMatch(l -> l.startsWith("tandem_engine_remote_send_total")
        && !l.endsWith(" 0.0")), "the prefill engine shipped KV into the decode engines' PEs");
  }
}
