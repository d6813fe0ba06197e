package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.world.WorldInitConfig;
import dev.tandem.world.WorldRoot;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Random;

/**
 * The MLC router's disaggregated call chain (prep_recv → remote_send → start_generate) against
 * engine processes, and readers that turn a streamed or whole completion response into one
 * comparable shape, for the MicroServing process tests.
 */
final class MicroServingCalls {
  private MicroServingCalls() {}

  /** MLC_NVSHMEM_INIT_CONFIG_JSON_STR for the engine holding PE {@code peStart} of {@code root}'s world. */
  static String worldEnv(WorldRoot root, int peStart) {
    return new WorldInitConfig(root.uid(), root.npes(), peStart).toJson();
  }

  /** {@code len} token ids drawn from a seeded generator (ids 1..1000 of the tiny model's 1024). */
  static JsonArray prompt(int len, long seed) {
    Random random = new Random(seed);
    JsonArray ids = new JsonArray();
    for (int i = 0; i < len; i++) {
      ids.add(1 + random.nextInt(1000));
    }
    return ids;
  }

  /** A full CompletionRequest body as the MLC router sends it (debug_config present). */
  static JsonObject body(JsonArray prompt, String user, int maxTokens, boolean sample, long seed,
      boolean stream) {
    JsonObject debug = new JsonObject().put("ignore_eos", true).put("pinned_system_prompt", false)
        .putNull("special_request").put("grammar_execution_mode", "jump_forward")
        .putNull("disagg_config");
    JsonObject b = new JsonObject().putNull("model").put("prompt", prompt)
        .put("max_tokens", maxTokens).put("temperature", sample ? 0.9 : 0.0)
        .put("top_p", sample ? 0.9 : 1.0).put("seed", seed).put("n", 1).put("logprobs", 2)
        .put("stream", stream).put("stream_options", new JsonObject().put("include_usage", true))
        .put("debug_config", debug);
    return user == null ? b.putNull("user") : b.put("user", user);
  }

  /**
   * Choice 0 of a completion response, streamed or not, as {@code {text, finish_reason, ids,
   * token_logprobs, tokens, top_logprobs, extra}}: two answers are the same answer iff these are equal.
   */
  static JsonObject read(HttpJson.Reply r, boolean stream) {
    assertEquals(200, r.status(), r.body());
    StringBuilder text = new StringBuilder();
    JsonArray tokenLogprobs = new JsonArray();
    JsonArray tokens = new JsonArray();
    JsonArray top = new JsonArray();
    String finish = null;
    JsonObject usage = null;
    List<JsonObject> parts = stream ? r.events() : List.of(r.json());
    for (JsonObject part : parts) {
      for (Object o : part.getJsonArray("choices")) {
        JsonObject c = (JsonObject) o;
        assertEquals(0, c.getInteger("index"), r.body());
        text.append(c.getString("text"));
        if (c.getString("finish_reason") != null) {
          finish = c.getString("finish_reason");
        }
        JsonObject lp = c.getJsonObject("logprobs");
        if (lp != null) {
          tokenLogprobs.addAll(lp.getJsonArray("token_logprobs"));
          tokens.addAll(lp.getJsonArray("tokens"));
          top.addAll(lp.getJsonArray("top_logprobs"));
        }
      }
      if (part.getJsonObject("usage") != null) {
        usage = part.getJsonObject("usage");
      }
    }
    if (usage == null) {
      throw new AssertionError("no usage in " + r.body());
    }
    JsonObject extra = usage.getJsonObject("extra");
    return new JsonObject().put("text", text.toString()).put("finish_reason", finish)
        .put("ids", extra.getJsonArray("output_token_ids").getJsonArray(0))
        .put("token_logprobs", tokenLogprobs).put("tokens", tokens).put("top_logprobs", top)
        .put("extra", extra);
  }

  /** The answer without its per-request metrics, for comparing two answers. */
  static JsonObject comparable(JsonObject answer) {
    JsonObject c = answer.copy();
    c.remove("extra");
    return c;
  }

  /** What one run of the chain did and answered. */
  record Chain(JsonObject answer, int matched, int end, boolean sent) {}

  /**
   * MLC's router flow for one request (reference §4.6): prep_recv on D, remote_send on P only when
   * D's prefix cache does not already cover the window, start_generate on D.
   */
  static Chain chain(EngineProcess p, EngineProcess d, int dRank, JsonObject body, int end)
      throws Exception {
    int len = body.getJsonArray("prompt").size();
    HttpJson.Reply prep = d.http().post("/microserving/prep_recv", body.copy().put("end", end));
    assertEquals(200, prep.status(), prep.body());
    JsonObject pr = prep.json();
    assertEquals(List.of("kv_append_metadata", "prefix_matched_length"), List.copyOf(pr.fieldNames()));
    int endN = end < 0 ? len + end : end;
    int matched = pr.getInteger("prefix_matched_length");
    boolean send = matched < endN;
    if (send) {
      HttpJson.Reply sent = p.http().post("/microserving/remote_send", body.copy()
          .put("begin", matched).put("end", endN)
          .put("kv_addr_info", pr.getString("kv_append_metadata")).put("recv_rank", dRank));
      assertEquals(200, sent.status(), sent.body());
      assertEquals("{}", sent.body());
    }
    HttpJson.Reply gen = d.http().post("/microserving/start_generate", body.copy().put("begin", endN));
    return new Chain(read(gen, body.getBoolean("stream")), matched, endN, send);
  }

  /** A metric of an engine's /metrics right now. */
  static double metric(EngineProcess e, String name) throws Exception {
    return HttpJson.metric(e.http().get("/metrics").body(), "tandem_engine_" + name);
  }
}
