package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.engine.server.EngineProcess;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TandemJar;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem bench} as a process against a real builtin engine ({@code tandem serve} with the
 * tiny model), both from the tandem jar: exact output lengths through ignore_eos, usage-based
 * token counts, TTFT/TPOT present, streaming and not, open loop with a mix and shared prefixes.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BenchAgainstEngineIT {

  @TempDir
  static Path dir;
  private static EngineProcess engine;
  private static String url;
  private static Path model;

  @BeforeAll
  static void startEngine() throws Exception {
    model = TinyModel.shared();
    int port = FreePorts.one();
    url = "http://127.0.0.1:" + port;
    engine = EngineProcess.start(TandemJar.command("512m", "serve", model.toString(), "--device",
        "cpu:0", "--host", "127.0.0.1", "--port", Integer.toString(port), "--mode", "server",
        "--enable-debug"), Map.of(), port);
  }

  @AfterAll
  static void stopEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  private static JsonObject bench(String name, String... args) throws Exception {
    Path json = dir.resolve(name + ".json");
    Path log = dir.resolve(name + ".log");
    List<String> all = new ArrayList<>(List.of("bench", "--url", url, "--quiet", "--json", json.toString()));
    all.addAll(List.of(args));
    Process p = TandemJar.process(TandemJar.command("512m", all.toArray(String[]::new)))
        .redirectOutput(log.toFile()).start();
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

  /** Chat conversations (the engine's own chat endpoint and template), streamed and whole. */
  @Test
  void chatConversationsGetExactLengths() throws Exception {
    for (String stream : List.of("--stream", "--no-stream")) {
      List<String> args = new ArrayList<>(List.of("--api", "chat", "--multi-turn", "3",
          "--prompt-len", "6", "--output-len", "4", "--concurrency", "2", "--requests", "6"));
      if (stream.equals("--no-stream")) {
        args.add(stream);
      }
      JsonObject r = bench("chat" + stream, args.toArray(String[]::new));
      JsonObject all = r.getJsonObject("overall");
      assertEquals("chat", r.getJsonObject("options").getString("api"));
      assertEquals(6, all.getInteger("ok"), all.encodePrettily());
      assertEquals(6 * 4, all.getLong("output_tokens"), "ignore_eos reaches the chat's engine");
      assertTrue(all.getBoolean("output_tokens_from_usage"));
      assertEquals(stream.equals("--stream") ? 6 : 0,
          all.getJsonObject("ttft_ms").getInteger("count"), "chat deltas count as tokens");
    }
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
