package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Batch invariance end to end: greedy token ids and logprobs are identical for a prompt run alone,
 * among 8 concurrent requests, and under prefill chunk sizes 1, 7, 16 and 512 (separate engines);
 * and the prefix cache reuses whole pages while giving the same tokens as no cache.
 */
class BatchInvarianceIT {
  static final int[] LENGTHS = {1, 9, 33, 70, 150, 47, 16, 120};
  static Path model;
  /** Per prompt: the choice (text + logprobs) and token ids from the chunk-512 engine, run alone. */
  static final List<JsonObject> reference = new ArrayList<>();

  @BeforeAll
  static void tinyModel() {
    model = TinyModel.shared();
  }

  @AfterAll
  static void clear() {
    reference.clear();
  }

  static JsonArray prompt(int index) {
    JsonArray ids = new JsonArray();
    for (int i = 0; i < LENGTHS[index]; i++) {
      ids.add(1 + (index * 131 + i * 37) % 1000);
    }
    return ids;
  }

  static JsonObject run(HttpJson http, JsonArray prompt) throws Exception {
    JsonObject body = new JsonObject().put("prompt", prompt).put("max_tokens", 16)
        .put("temperature", 0).put("logprobs", 3).put("debug_config", new JsonObject().put("ignore_eos", true));
    HttpJson.Reply r = http.post("/v1/completions", body);
    assertEquals(200, r.status(), r.body());
    JsonObject json = r.json();
    JsonObject choice = json.getJsonArray("choices").getJsonObject(0);
    JsonArray ids = json.getJsonObject("usage").getJsonObject("extra").getJsonArray("output_token_ids");
    return new JsonObject().put("text", choice.getString("text"))
        .put("logprobs", choice.getJsonObject("logprobs")).put("ids", ids.getJsonArray(0))
        .put("extra", json.getJsonObject("usage").getJsonObject("extra"));
  }

  static List<JsonObject> runConcurrently(HttpJson http) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(LENGTHS.length);
    try {
      List<Future<JsonObject>> futures = new ArrayList<>();
      for (int i = 0; i < LENGTHS.length; i++) {
        JsonArray p = prompt(i);
        futures.add(pool.submit(() -> run(http, p)));
      }
      List<JsonObject> out = new ArrayList<>();
      for (Future<JsonObject> f : futures) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  static void assertSame(JsonObject expected, JsonObject actual, String what) {
    assertEquals(expected.getJsonArray("ids"), actual.getJsonArray("ids"), what + ": token ids");
    assertEquals(expected.getJsonObject("logprobs"), actual.getJsonObject("logprobs"), what + ": logprobs");
    assertEquals(expected.getString("text"), actual.getString("text"), what + ": text");
  }

  @Test
  void tokensAndLogprobsDoNotDependOnBatchOrChunking() throws Exception {
    for (int chunk : new int[] {512, 1, 7, 16}) {
      try (EngineProcess e = EngineProcess.serve(model, Map.of(), "--device", "cpu:0",
          "--enable-debug", "--prefix-cache-mode", "disable", "--overrides",
          "max_num_sequence=8;max_total_seq_length=8192;prefill_chunk_size=" + chunk)) {
        for (int i = 0; i < LENGTHS.length; i++) {
          JsonObject alone = run(e.http(), prompt(i));
          if (chunk == 512) {
            reference.add(alone);
          } else {
            assertSame(reference.get(i), alone, "chunk " + chunk + " alone, prompt " + i);
          }
        }
        List<JsonObject> together = runConcurrently(e.http());
        for (int i = 0; i < LENGTHS.length; i++) {
          assertSame(reference.get(i), together.get(i), "chunk " + chunk + " among 8, prompt " + i);
        }
      }
    }
  }

  @Test
  void prefixCacheComputesOnlyTheRestAndKeepsTheTokens() throws Exception {
    JsonArray longPrompt = new JsonArray();
    for (int i = 0; i < 200; i++) {
      longPrompt.add(1 + (i * 53) % 1000);
    }
    JsonArray sharing = new JsonArray(new ArrayList<>(longPrompt.getList().subList(0, 180)));
    for (int i = 0; i < 25; i++) {
      sharing.add(900 + i);
    }
    JsonObject uncached;
    try (EngineProcess off = EngineProcess.serve(model, Map.of(), "--enable-debug",
        "--prefix-cache-mode", "disable", "--overrides", "max_total_seq_length=8192")) {
      run(off.http(), longPrompt);
      uncached = run(off.http(), sharing);
      assertEquals(0, uncached.getJsonObject("extra").getInteger("prefix_matched_length"));
    }
    try (EngineProcess on = EngineProcess.serve(model, Map.of(), "--enable-debug",
        "--prefix-cache-mode", "radix", "--overrides", "max_total_seq_length=8192")) {
      run(on.http(), longPrompt);
      JsonObject cached = run(on.http(), sharing);
      JsonObject extra = cached.getJsonObject("extra");
      assertEquals(176, extra.getInteger("prefix_matched_length"), "11 whole pages of the 180 shared tokens");
      assertEquals(205 - 176, extra.getInteger("prefill_tokens"));
      assertSame(uncached, cached, "cache on vs off");
      String metrics = on.http().get("/metrics").body();
      assertTrue(HttpJson.metric(metrics, "tandem_engine_prefix_cache_hit_tokens_total") >= 176);
    }
  }
}
