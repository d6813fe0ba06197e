package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.FreePorts;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem bench} as a process against a real builtin engine ({@code tandem serve} with the
 * tiny model), both from target/tandem.jar: exact output lengths through ignore_eos, usage-based
 * token counts, TTFT/TPOT present, streaming and not, open loop with a mix and shared prefixes.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BenchAgainstEngineIT {

  @TempDir
  static Path dir;
  private static Process engine;
  private static String url;
  private static Path model;

  private static List<String> java(String... args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-Dai.djl.offline=true", "-Dhazelcast.phone.home.enabled=false", "-jar",
        System.getProperty("tandem.jar", "target/tandem.jar")));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static ProcessBuilder builder(Path log, String... args) {
    ProcessBuilder pb = new ProcessBuilder(java(args)).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("DJL_OFFLINE", "true");
    return pb;
  }

  @BeforeAll
  static void startEngine() throws Exception {
    model = dir.resolve("tiny");
    Process make = builder(dir.resolve("make-model.log"), "make-model", model.toString(), "--preset", "tiny").start();
    assertTrue(make.waitFor(120, TimeUnit.SECONDS) && make.exitValue() == 0,
        "make-model failed: " + Files.readString(dir.resolve("make-model.log")));
    int port = FreePorts.one();
    url = "http://127.0.0.1:" + port;
    engine = builder(dir.resolve("engine.log"), "serve", model.toString(), "--device", "cpu:0", "--host",
        "127.0.0.1", "--port", Integer.toString(port), "--mode", "server", "--enable-debug").start();
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url + "/v1/models"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) {
          break;
        }
      } catch (IOException e) {
        // not listening yet
      }
      assertTrue(engine.isAlive(), "engine exited: " + Files.readString(dir.resolve("engine.log")));
      assertTrue(System.nanoTime() < deadline, "engine not ready in 120 s: " + Files.readString(dir.resolve("engine.log")));
      Thread.sleep(200);
    }
  }

  @AfterAll
  static void stopEngine() throws Exception {
    if (engine != null) {
      engine.destroy();
      if (!engine.waitFor(15, TimeUnit.SECONDS)) {
        engine.destroyForcibly().waitFor();
      }
    }
  }

  private static JsonObject bench(String name, String... args) throws Exception {
    Path json = dir.resolve(name + ".json");
    Path log = dir.resolve(name + ".log");
    List<String> all = new ArrayList<>(List.of("bench", "--url", url, "--quiet", "--json", json.toString()));
    all.addAll(List.of(args));
    Process p = builder(log, all.toArray(String[]::new)).start();
    assertTrue(p.waitFor(180, TimeUnit.SECONDS), "bench did not finish");
    assertEquals(0, p.exitValue(), "bench failed: " + Files.readString(log));
    return new JsonObject(Files.readString(json));
  }

  @Test
  void closedLoopStreamingGetsExactLengthsAndTimings() throws Exception {
    JsonObject r = bench("closed", "--prompt-kind", "ids", "--model-dir", model.toString(), "--first-token-id", "3", "--prompt-len", "24",
        "--output-len", "8", "--concurrency", "4", "--requests", "16", "--warmup", "2");
    JsonObject all = r.getJsonObject("overall");
    assertEquals(16, all.getInteger("ok"), all.encodePrettily());
    assertEquals(0, all.getInteger("errors"));
    assertEquals(16 * 8, all.getLong("output_tokens"), "ignore_eos makes every answer max_tokens long");
    assertEquals(16 * 24, all.getLong("prompt_tokens"), "token id prompts have exact lengths");
    assertTrue(all.getBoolean("output_tokens_from_usage"), "the engine sends the final usage record");
    assertEquals(0, all.getInteger("short_outputs"));
    double ttft = all.getJsonObject("ttft_ms").getDouble("p50");
    double tpot = all.getJsonObject("tpot_ms").getDouble("p50");
    double e2e = all.getJsonObject("e2e_ms").getDouble("p50");
    assertTrue(ttft > 0 && tpot > 0 && e2e > ttft, r.encodePrettily());
    assertTrue(all.getDouble("req_per_s") > 0);
  }

  @Test
  void nonStreamingCountsTokensFromUsage() throws Exception {
    JsonObject all = bench("plain", "--no-stream", "--prompt-len", "10", "--output-len", "6", "--concurrency", "2",
        "--requests", "6").getJsonObject("overall");
    assertEquals(6, all.getInteger("ok"), all.encodePrettily());
    assertEquals(36, all.getLong("output_tokens"));
    assertEquals(0, all.getJsonObject("ttft_ms").getInteger("count"));
  }

  @Test
  void openLoopMixWithSharedPrefixes() throws Exception {
    JsonObject r = bench("open", "--rate", "20", "--requests", "20", "--mix", "long=40/2@1", "--mix", "short=4/10@1",
        "--shared-prefix", "2:16", "--prompt-kind", "ids", "--model-dir", model.toString(), "--first-token-id", "3", "--seed", "3");
    JsonObject classes = r.getJsonObject("classes");
    int longOk = classes.getJsonObject("long").getInteger("ok");
    int shortOk = classes.getJsonObject("short").getInteger("ok");
    assertEquals(20, longOk + shortOk, r.encodePrettily());
    assertTrue(longOk > 0 && shortOk > 0);
    assertEquals(2L * longOk + 10L * shortOk, r.getJsonObject("overall").getLong("output_tokens"));
    assertEquals(56L * longOk + 20L * shortOk, r.getJsonObject("overall").getLong("prompt_tokens"));
  }
}
