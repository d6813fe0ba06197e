package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.config.RouterConfig;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TandemJar;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.transport.Transport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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

/** {@code tandem router} as its own process: SIGTERM, kill -9 and a failed start-up leave no engine. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RouterProcessIT {
  private static final long STOP_GRACE_MS = 3000;
  @TempDir Path dir;
  private Process router;

  @AfterEach
  void killLeftovers() throws InterruptedException {
    if (router != null) {
      router.destroyForcibly();
    }
    for (long pid : ProcessTools.processesMentioning(dir.toString())) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  /** A private copy of the model, so that engines of this test are found by their command line. */
  private Path model() throws IOException {
    return TinyModel.copyTo(dir.resolve("model"));
  }

  private Process startRouter(Path model, int routerPort, int... enginePorts) throws IOException {
    return startRouter(model, List.of(), routerPort, enginePorts);
  }

  private Process startRouter(Path model, List<String> flags, int routerPort, int... enginePorts)
      throws IOException {
    List<String> cmd = TandemJar.command("256m", "router", model.toString(), "--router-port",
        Integer.toString(routerPort), "--log-dir", dir.resolve("logs").toString(),
        "--engine-jvm-opts=-Xmx256m", "--health-interval", "0.5", "--stop-grace",
        STOP_GRACE_MS + "ms", "--endpoint-ports");
    for (int p : enginePorts) {
      cmd.add(Integer.toString(p));
    }
    cmd.addAll(flags);
    router = TandemJar.process(cmd).redirectOutput(dir.resolve("router.out").toFile()).start();
    return router;
  }

  private List<Long> awaitFleet(int routerPort, int engines) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest fleet = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + routerPort + "/fleet"))
        .timeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline && router.isAlive()) {
      try {
        HttpResponse<String> r = http.send(fleet, HttpResponse.BodyHandlers.ofString());
        JsonArray list = new JsonObject(r.body()).getJsonArray("engines");
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
          assertEquals("READY", list.getJsonObject(i).getString("state"));
          pids.add(list.getJsonObject(i).getLong("pid"));
        }
        assertEquals(engines, pids.size());
        return pids;
      } catch (IOException notYet) {
        Thread.sleep(200);
      }
    }
    throw new AssertionError("router not serving /fleet; output:\n" + output());
  }

  @Test
  void sigtermStopsEveryEngineWithinTheGracePeriod() throws Exception {
    int[] ports = FreePorts.of(3);
    startRouter(model(), ports[2], ports[0], ports[1]);
    List<Long> engines = awaitFleet(ports[2], 2);
    assertEquals(engines.size(), ProcessTools.processesMentioning(dir.toString()).size() - 1,
        "the router and its two engines");
    long t0 = System.nanoTime();
    router.destroy(); // SIGTERM
    assertTrue(router.waitFor(STOP_GRACE_MS + 10_000, TimeUnit.MILLISECONDS), "router exited");
    assertEquals(List.of(), ProcessTools.awaitGone(engines, 0), "engines left after the router exited");
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(ms < STOP_GRACE_MS + 5000, "stopped in " + ms + " ms");
    assertEquals(List.of(), ProcessTools.processesMentioning(dir.toString()));
    assertTrue(output().contains("STOPPED"), output());
  }

  /**
   * SIGTERM with a stream in flight (simulated engines, so that it lasts seconds): the stream
   * runs to its end, meanwhile /ready says stopping and a new request gets 503 shutting_down,
   * then the router stops its engines and exits.
   */
  @Test
  void sigtermLetsTheStreamInFlightFinishAndRefusesNewRequests() throws Exception {
    int[] ports = FreePorts.of(3);
    startRouter(model(), List.of("--engine", "sim", "--router-mode", "round-robin", "--drain-timeout",
        "30s"), ports[2], ports[0], ports[1]);
    List<Long> engines = awaitFleet(ports[2], 2);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    URI base = URI.create("http://127.0.0.1:" + ports[2]);
    String body = new JsonObject().put("prompt", "Keep going").put("max_tokens", 300)
        .put("temperature", 0).put("stream", true)
        .put("stream_options", new JsonObject().put("include_usage", true)).encode();
    HttpResponse<java.util.stream.Stream<String>> streaming = http.send(HttpRequest.newBuilder(
            base.resolve("/v1/completions")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, streaming.statusCode());
    java.util.Iterator<String> lines = streaming.body().iterator();
    assertTrue(lines.next().startsWith("data: {"), "the first chunk");
    long t0 = System.nanoTime();
    router.destroy(); // SIGTERM
    HttpResponse<String> ready = null;
    for (int i = 0; i < 50; i++) { // the hook starts the drain within milliseconds
      ready = http.send(HttpRequest.newBuilder(base.resolve("/ready")).build(),
          HttpResponse.BodyHandlers.ofString());
      if (ready.statusCode() == 503) {
        break;
      }
      Thread.sleep(20);
    }
    assertEquals(503, ready.statusCode(), ready.body());
    assertEquals(Boolean.TRUE, new JsonObject(ready.body()).getBoolean("stopping"), ready.body());
    HttpResponse<String> late = http.send(HttpRequest.newBuilder(base.resolve("/v1/completions"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"Too late\",\"max_tokens\":4}"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(503, late.statusCode(), late.body());
    assertEquals("shutting_down", new JsonObject(late.body()).getJsonObject("error").getString("code"));
    assertTrue(late.headers().firstValue("retry-after").isPresent());
    assertEquals("close", late.headers().firstValue("connection").orElse(null),
        "a keep-alive client reconnects, to another router");
    assertTrue(router.isAlive(), "still serving the stream");
    JsonObject usage = null;
    String last = null;
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("data: {")
          && new JsonObject(line.substring(6)).getValue("usage") instanceof JsonObject u) {
        usage = u;
      }
      if (!line.isEmpty()) {
        last = line;
      }
    }
    assertEquals("data: [DONE]", last, "the stream ended as streams end");
    assertEquals(300, usage.getInteger("completion_tokens"), usage.encode());
    long streamedOnMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(router.waitFor(STOP_GRACE_MS + 15_000, TimeUnit.MILLISECONDS), "router exited");
    assertEquals(List.of(), ProcessTools.awaitGone(engines, 0), "engines left after the router exited");
    String out = output();
    assertTrue(out.contains("every request in flight finished"), out);
    assertTrue(streamedOnMs > 300, "the stream outlived the SIGTERM by " + streamedOnMs + " ms");
  }

  @Test
  void ioUringCarriesADisaggregatedStreamWhereTheKernelAllowsIt() throws Exception {
    assumeTrue(Transport.IO_URING.available(), "io_uring does not load here: "
        + Transport.IO_URING.unavailabilityCause());
    int[] ports = FreePorts.of(3);
    startRouter(model(), List.of("--network-transport", "io_uring"), ports[2], ports[0], ports[1]);
    awaitFleet(ports[2], 2);
    assertTrue(output().contains("network transport: io_uring"), output());
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    String body = "{\"prompt\":[3,4,5,6,7,8,9,10],\"max_tokens\":6,\"temperature\":0,"
        + "\"debug_config\":{\"ignore_eos\":true}";
    URI completions = URI.create("http://127.0.0.1:" + ports[2] + "/v1/completions");
    HttpResponse<String> whole = http.send(HttpRequest.newBuilder(completions)
        .POST(HttpRequest.BodyPublishers.ofString(body + "}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, whole.statusCode(), whole.body());
    JsonObject answer = new JsonObject(whole.body());
    assertEquals(6, answer.getJsonObject("usage").getInteger("completion_tokens"), whole.body());
    HttpResponse<String> stream = http.send(HttpRequest.newBuilder(completions)
        .POST(HttpRequest.BodyPublishers.ofString(body + ",\"stream\":true}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, stream.statusCode(), stream.body());
    StringBuilder text = new StringBuilder();
    for (String line : stream.body().split("\n")) {
      if (line.startsWith("data: {")) {
        JsonArray choices = new JsonObject(line.substring(6)).getJsonArray("choices");
        for (int i = 0; i < choices.size(); i++) {
          text.append(choices.getJsonObject(i).getString("text", ""));
        }
      }
    }
    assertTrue(stream.body().strip().endsWith("data: [DONE]"), stream.body());
    assertEquals(answer.getJsonArray("choices").getJsonObject(0).getString("text"), text.toString(),
        "streamed and whole answers of one greedy request");
  }

  @Test
  void kill9OfTheRouterTakesEveryEngineDownWithinFiveSeconds() throws Exception {
    int[] ports = FreePorts.of(3);
    startRouter(model(), ports[2], ports[0], ports[1]);
    List<Long> engines = awaitFleet(ports[2], 2);
    router.destroyForcibly(); // SIGKILL: no shutdown hook runs
    assertTrue(router.waitFor(5, TimeUnit.SECONDS));
    assertEquals(List.of(), ProcessTools.awaitGone(engines, 5000), "engines alive 5 s after kill -9");
  }

  @Test
  void vertxLauncherDeploysTheSupervisorFromJsonAndSigtermStopsTheFleet() throws Exception {
    int[] ports = FreePorts.of(3);
    RouterConfig config = new RouterConfig().set(MODEL, model().toString()).set(ROUTER_PORT, ports[2])
        .set(ENDPOINT_PORTS, List.of(ports[0], ports[1])).set(LOG_DIR, dir.resolve("logs").toString())
        .set(ENGINE_JVM_OPTS, List.of("-Xmx256m")).set(STOP_GRACE, Duration.ofMillis(STOP_GRACE_MS));
    Path json = dir.resolve("router.json");
    Files.writeString(json, config.toJson().encodePrettily());
    router = TandemJar.process(TandemJar.mainClassCommand("256m",
            "io.vertx.launcher.application.VertxApplication", SupervisorVerticle.class.getName(),
            "-conf", json.toString()))
        .redirectOutput(dir.resolve("router.out").toFile()).start();
    List<Long> engines = awaitFleet(ports[2], 2);
    router.destroy(); // SIGTERM: the launcher closes Vert.x, which undeploys the supervisor
    assertTrue(router.waitFor(STOP_GRACE_MS + 10_000, TimeUnit.MILLISECONDS), "launcher exited");
    assertEquals(List.of(), ProcessTools.awaitGone(engines, 0), "engines left after the launcher exited");
  }

  @Test
  void brokenModelExitsNonZeroNamingTheEngineAndLeavesNoProcess() throws Exception {
    Path broken = Files.createDirectories(dir.resolve("broken"));
    Files.copy(TinyModel.shared().resolve("tokenizer.json"), broken.resolve("tokenizer.json"));
    int[] ports = FreePorts.of(3);
    startRouter(broken, ports[2], ports[0], ports[1]);
    assertTrue(router.waitFor(120, TimeUnit.SECONDS), "router gave up");
    String out = output();
    assertEquals(1, router.exitValue(), out);
    assertTrue(out.matches("(?s).*tandem router: start-up failed: engine \\d \\((prefill|decode),"
        + " 127\\.0\\.0\\.1:\\d+, cpu:\\d\\) exited with code [1-9]\\d* before it was ready.*last"
        + " lines:\n  \\| .*"), out);
    assertEquals(List.of(), ProcessTools.processesMentioning(dir.toString()), "no process left");
  }

  private String output() throws IOException {
    return Files.readString(dir.resolve("router.out"), StandardCharsets.UTF_8);
  }
}
