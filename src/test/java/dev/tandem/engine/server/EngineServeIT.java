package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One real engine process on the tiny model: the completion API end to end. */
class EngineServeIT {
  static EngineProcess engine;
  static HttpJson http;
  static Path model;

  @BeforeAll
  static void start() throws Exception {
    model = TinyModel.shared();
    // one core, the second one (wrapping on a 1-core machine): as the fleet starts engine 1
    engine = EngineProcess.serve(model, Map.of(), "--device", "cpu:1", "--enable-debug",
        "--mode", "local", "--overrides", "max_num_sequence=8;max_total_seq_length=16384;tensor_parallel_shards=1");
    http = engine.http();
  }

  @AfterAll
  static void stop() {
    if (engine != null) {
      engine.close();
    }
  }

  static JsonObject complete(JsonObject body) throws Exception {
    HttpJson.Reply r = http.post("/v1/completions", body);
    assertEquals(200, r.status(), r.body());
    return r.json();
  }

  static JsonObject req(Object prompt, int maxTokens) {
    return new JsonObject().put("prompt", prompt).put("max_tokens", maxTokens)
        .put("temperature", 0).put("debug_config", new JsonObject().put("ignore_eos", true));
  }

  /** Text and per-token logprobs of a streamed answer, joined. */
  static JsonObject joinStream(List<JsonObject> events) {
    StringBuilder text = new StringBuilder();
    JsonArray lps = new JsonArray();
    String finish = null;
    for (JsonObject e : events) {
      for (Object o : e.getJsonArray("choices")) {
        JsonObject c = (JsonObject) o;
        text.append(c.getString("text"));
        if (c.getJsonObject("logprobs") != null) {
          lps.addAll(c.getJsonObject("logprobs").getJsonArray("token_logprobs"));
        }
        finish = c.getString("finish_reason") != null ? c.getString("finish_reason") : finish;
      }
    }
    return new JsonObject().put("text", text.toString()).put("logprobs", lps).put("finish", finish);
  }

  @Test
  void textAndTokenIdPromptsAgree() throws Exception {
    String text = "The quick brown fox";
    int[] ids;
    try (dev.tandem.tokenizer.DjlTokenizer tok = dev.tandem.tokenizer.DjlTokenizer.load(model)) {
      ids = tok.encode(text);
    }
    JsonArray idArray = new JsonArray();
    for (int id : ids) {
      idArray.add(id);
    }
    JsonObject byText = complete(req(text, 12).put("logprobs", 1));
    JsonObject byIds = complete(req(idArray, 12).put("logprobs", 1));
    assertEquals(ids.length, byText.getJsonObject("usage").getInteger("prompt_tokens"));
    assertArrayEquals(HttpJson.outputIds(byText).get(0), HttpJson.outputIds(byIds).get(0));
    assertEquals(byText.getJsonArray("choices"), byIds.getJsonArray("choices"));
    assertEquals(12, HttpJson.outputIds(byIds).get(0).length);
  }

  @Test
  void streamingEqualsNonStreaming() throws Exception {
    JsonObject body = req("Streaming or not, the answer is", 20).put("logprobs", 2);
    JsonObject whole = complete(body);
    HttpJson.Reply streamed = http.post("/v1/completions", body.copy().put("stream", true));
    JsonObject joined = joinStream(streamed.events());
    JsonObject choice = whole.getJsonArray("choices").getJsonObject(0);
    assertEquals(choice.getString("text"), joined.getString("text"));
    assertEquals(choice.getJsonObject("logprobs").getJsonArray("token_logprobs"), joined.getJsonArray("logprobs"));
    assertEquals("length", joined.getString("finish"));
  }

  @Test
  void seededSamplingRepeatsAndNChoicesDiffer() throws Exception {
    JsonObject body = new JsonObject().put("prompt", "Once upon a time").put("max_tokens", 16)
        .put("temperature", 1.0).put("top_p", 0.9).put("seed", 1234).put("n", 3)
        .put("debug_config", new JsonObject().put("ignore_eos", true));
    JsonObject a = complete(body);
    JsonObject b = complete(body);
    assertEquals(a.getJsonArray("choices"), b.getJsonArray("choices"));
    assertEquals(3, a.getJsonArray("choices").size());
    List<int[]> ids = HttpJson.outputIds(a);
    assertFalse(java.util.Arrays.equals(ids.get(0), ids.get(1)) && java.util.Arrays.equals(ids.get(1), ids.get(2)),
        "three sampled choices should not all be equal");
    JsonObject other = complete(body.copy().put("seed", 99));
    assertNotEquals(a.getJsonArray("choices"), other.getJsonArray("choices"));
  }

  @Test
  void stopStringsCutTheText() throws Exception {
    JsonObject free = complete(req("Tell me a story about", 30));
    String text = free.getJsonArray("choices").getJsonObject(0).getString("text");
    assertTrue(text.length() > 6, text);
    String stop = text.substring(4, 6);
    JsonObject cut = complete(req("Tell me a story about", 30).put("stop", new JsonArray().add(stop)));
    JsonObject choice = cut.getJsonArray("choices").getJsonObject(0);
    assertEquals(text.substring(0, text.indexOf(stop)), choice.getString("text"));
    assertEquals("stop", choice.getString("finish_reason"));
    HttpJson.Reply streamed = http.post("/v1/completions",
        req("Tell me a story about", 30).put("stop", stop).put("stream", true));
    assertEquals(choice.getString("text"), joinStream(streamed.events()).getString("text"));
  }

  @Test
  void echoRepeatsThePrompt() throws Exception {
    JsonObject r = complete(req("Echo this prompt", 4).put("echo", true));
    assertTrue(r.getJsonArray("choices").getJsonObject(0).getString("text").startsWith("Echo this prompt"));
  }

  @Test
  void logprobsCarryTopAlternatives() throws Exception {
    JsonObject r = complete(req("Alternatives", 5).put("logprobs", 5));
    JsonObject lp = r.getJsonArray("choices").getJsonObject(0).getJsonObject("logprobs");
    assertEquals(5, lp.getJsonArray("tokens").size());
    JsonObject top = lp.getJsonArray("top_logprobs").getJsonObject(0);
    assertTrue(top.size() >= 1 && top.size() <= 5);
    double chosen = lp.getJsonArray("token_logprobs").getDouble(0);
    assertTrue(chosen <= 0);
    // greedy: the chosen token is the most likely one
    double best = top.stream().mapToDouble(e -> ((Number) e.getValue()).doubleValue()).max().orElseThrow();
    assertEquals(best, chosen, 0.0);
  }

  @Test
  void everyBadRequestIsA4xxAndTheEngineKeepsServing() throws Exception {
    String[] bad = {
        "{oops", "{}", "{\"prompt\":\"\"}", "{\"prompt\":[]}", "{\"prompt\":[5000]}",
        "{\"prompt\":\"a\",\"max_tokens\":-1}", "{\"prompt\":\"a\",\"max_tokens\":100000}",
        "{\"prompt\":\"a\",\"temperature\":-0.5}", "{\"prompt\":\"a\",\"top_p\":0}",
        "{\"prompt\":\"a\",\"top_p\":1.5}", "{\"prompt\":\"a\",\"n\":0}", "{\"prompt\":\"a\",\"logprobs\":9}",
        "{\"prompt\":\"a\",\"max_tokens\":\"5\"}", "{\"prompt\":" + new JsonArray(java.util.Collections.nCopies(5000, 3)) + "}",
    };
    for (String body : bad) {
      HttpJson.Reply r = http.post("/v1/completions", body);
      assertEquals(400, r.status(), body);
      JsonObject error = r.json().getJsonObject("error");
      assertEquals("invalid_request_error", error.getString("type"));
      assertTrue(error.getString("message").length() > 10, error.getString("message"));
    }
    HttpJson.Reply micro = http.post("/microserving/prep_recv", "{\"prompt\":[1,2],\"user\":\"u\",\"end\":-1}");
    assertEquals(503, micro.status());
    assertTrue(micro.body().contains("MLC_NVSHMEM_INIT_CONFIG_JSON_STR"));
    assertEquals(200, http.post("/v1/completions", req("still alive", 2)).status());
  }

  @Test
  void computesOnItsCoreBudgetShownInMetrics() throws Exception {
    String metrics = http.get("/metrics").body();
    boolean linux = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("linux");
    String want = "tandem_engine_compute_threads{cpus=\"" + dev.tandem.engine.model.CoreBudget.devices(1, 1).cpuList()
        + "\",pinned=\"" + linux + "\"}";
    assertEquals(1, HttpJson.metric(metrics, want), want + " in\n" + metrics);
  }
}
