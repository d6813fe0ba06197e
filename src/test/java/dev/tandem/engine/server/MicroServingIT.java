package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.world.WorldRoot;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MicroServing across two engine processes joined in one KV world (P = PE 0, D = PE 1): the
 * prep_recv → remote_send → start_generate chain answers exactly like /v1/completions, D computes
 * only what the window leaves it, and bad windows, missing reservations, release and the TTL
 * behave.
 */
class MicroServingIT {
  static WorldRoot root;
  static EngineProcess p;
  static EngineProcess d;
  static int seq;

  @BeforeAll
  static void start() throws Exception {
    Path model = TinyModel.shared();
    root = WorldRoot.start("127.0.0.1", 2);
    List<String> uid = new ArrayList<>();
    for (int v : root.uid()) {
      uid.add(Integer.toString(v));
    }
    String u = "[" + String.join(", ", uid) + "]";
    int pp = FreePorts.one();
    int dp = FreePorts.one();
    String[] args = {"--device", "cpu:0", "--enable-debug", "--mode", "server", "--parked-ttl", "4",
        "--overrides", "max_num_sequence=8;max_total_seq_length=16384"};
    p = EngineProcess.launch(EngineProcess.serveCommand(model, pp, args), Map.of(
        "MLC_NVSHMEM_INIT_CONFIG_JSON_STR", "{\"uid\": " + u + ", \"npes\": 2, \"pe_start\": 0}"), pp);
    d = EngineProcess.launch(EngineProcess.serveCommand(model, dp, args), Map.of(
        "MLC_NVSHMEM_INIT_CONFIG_JSON_STR", "{\"uid\": " + u + ", \"npes\": 2, \"pe_start\": 1}"), dp);
    p.awaitReady(Duration.ofSeconds(90));
    d.awaitReady(Duration.ofSeconds(90));
  }

  @AfterAll
  static void stop() {
    for (EngineProcess e : new EngineProcess[] {p, d}) {
      if (e != null) {
        e.close();
      }
    }
    if (root != null) {
      root.close();
    }
  }

  static JsonArray prompt(int len, int salt) {
    JsonArray ids = new JsonArray();
    for (int i = 0; i < len; i++) {
      ids.add(1 + (salt * 97 + i * 31) % 1000);
    }
    return ids;
  }

  /** A full CompletionRequest body as the MLC router sends it. */
  static JsonObject body(JsonArray prompt, String user, boolean sample, boolean stream) {
    JsonObject debug = new JsonObject().put("ignore_eos", true).put("pinned_system_prompt", false)
        .putNull("special_request").put("grammar_execution_mode", "jump_forward").putNull("disagg_config");
    return new JsonObject().putNull("model").put("prompt", prompt).put("max_tokens", 12)
        .put("temperature", sample ? 0.9 : 0.0).put("top_p", sample ? 0.9 : 1.0).put("seed", 77)
        .put("n", 1).put("logprobs", 2).put("stream", stream)
        .put("stream_options", new JsonObject().put("include_usage", true)).put("user", user)
        .put("debug_config", debug);
  }

  /** ids, logprobs and usage.extra of a (streamed or not) completion response. */
  static JsonObject answer(HttpJson.Reply r, boolean stream) {
    assertEquals(200, r.status(), r.body());
    if (!stream) {
      JsonObject json = r.json();
      JsonObject extra = json.getJsonObject("usage").getJsonObject("extra");
      return new JsonObject().put("ids", extra.getJsonArray("output_token_ids").getJsonArray(0))
          .put("logprobs", json.getJsonArray("choices").getJsonObject(0).getJsonObject("logprobs")
              .getJsonArray("token_logprobs"))
          .put("extra", extra);
    }
    JsonArray lps = new JsonArray();
    JsonObject extra = null;
    for (JsonObject e : r.events()) {
      for (Object o : e.getJsonArray("choices")) {
        JsonObject lp = ((JsonObject) o).getJsonObject("logprobs");
        if (lp != null) {
          lps.addAll(lp.getJsonArray("token_logprobs"));
        }
      }
      if (e.getJsonObject("usage") != null) {
        extra = e.getJsonObject("usage").getJsonObject("extra");
      }
    }
    return new JsonObject().put("ids", extra.getJsonArray("output_token_ids").getJsonArray(0))
        .put("logprobs", lps).put("extra", extra);
  }

  /** The disaggregated chain of MLC's router for one request. */
  static JsonObject chain(JsonArray prompt, int end, boolean sample, boolean stream) throws Exception {
    String user = "cmpl-ms-" + (seq++);
    JsonObject b = body(prompt, user, sample, stream);
    HttpJson.Reply prep = d.http().post("/microserving/prep_recv", b.copy().put("end", end));
    assertEquals(200, prep.status(), prep.body());
    JsonObject pr = prep.json();
    assertEquals(List.of("kv_append_metadata", "prefix_matched_length"), List.copyOf(pr.fieldNames()));
    int endN = end < 0 ? prompt.size() + end : end;
    int matched = pr.getInteger("prefix_matched_length");
    if (matched < endN) {
      HttpJson.Reply send = p.http().post("/microserving/remote_send", b.copy().put("begin", matched)
          .put("end", endN).put("kv_addr_info", pr.getString("kv_append_metadata")).put("recv_rank", 1));
      assertEquals(200, send.status(), send.body());
      assertEquals("{}", send.body());
    }
    return answer(d.http().post("/microserving/start_generate", b.copy().put("begin", endN)), stream)
        .put("matched", matched).put("end", endN);
  }

  @Test
  void chainEqualsColocatedCompletion() throws Exception {
    int salt = 0;
    for (int len : new int[] {1, 6, 40, 130}) {
      for (int end : new int[] {-1, len / 2}) {
        for (boolean sample : new boolean[] {false, true}) {
          boolean stream = (salt % 2) == 1;
          JsonArray prompt = prompt(len, salt++);
          JsonObject colocated = answer(p.http().post("/v1/completions",
              body(prompt, null, sample, stream)), stream);
          JsonObject disagg = chain(prompt, end, sample, stream);
          String what = "len " + len + " end " + end + (sample ? " sampled" : " greedy");
          assertEquals(12, disagg.getJsonArray("ids").size(), what);
          assertEquals(12, disagg.getJsonArray("logprobs").size(), what);
          assertEquals(colocated.getJsonArray("ids"), disagg.getJsonArray("ids"), what);
          assertEquals(colocated.getJsonArray("logprobs"), disagg.getJsonArray("logprobs"), what);
          int endN = disagg.getInteger("end");
          if (disagg.getInteger("matched") == 0) {
            assertEquals(len - endN, disagg.getJsonObject("extra").getInteger("prefill_tokens"), what);
          }
        }
      }
    }
    String dm = d.http().get("/metrics").body();
    assertTrue(HttpJson.metric(dm, "tandem_engine_kv_received_tokens_total") > 0);
    assertTrue(HttpJson.metric(p.http().get("/metrics").body(), "tandem_engine_kv_sent_tokens_total") > 0);
  }

  @Test
  void secondRequestHitsDsPrefixCache() throws Exception {
    JsonArray prompt = prompt(100, 555);
    chain(prompt, -1, false, false);
    JsonObject again = chain(prompt, -1, false, false);
    assertEquals(96, again.getInteger("matched"));
    assertEquals(100 - 99, again.getJsonObject("extra").getInteger("prefill_tokens"));
  }

  @Test
  void badWindowsAndMissingReservationsAre4xx() throws Exception {
    JsonObject b = body(prompt(20, 9), "bad-" + (seq++), false, false);
    assertEquals(400, d.http().post("/microserving/prep_recv", b.copy().put("end", 20)).status());
    assertEquals(400, d.http().post("/microserving/prep_recv", b.copy().put("end", -21)).status());
    assertEquals(400, d.http().post("/microserving/prep_recv", b.copy()).status(), "end is required");
    assertEquals(404, d.http().post("/microserving/start_generate", b.copy().put("begin", 19)).status());
    String meta = d.http().post("/microserving/prep_recv", b.copy().put("end", 10)).json()
        .getString("kv_append_metadata");
    assertEquals(400, p.http().post("/microserving/remote_send", b.copy().put("begin", 10).put("end", 10)
        .put("kv_addr_info", meta).put("recv_rank", 1)).status(), "begin >= end");
    assertEquals(400, p.http().post("/microserving/remote_send", b.copy().put("begin", 2).put("end", 10)
        .put("kv_addr_info", meta).put("recv_rank", 1)).status(), "metadata length != window");
    assertEquals(400, p.http().post("/microserving/remote_send", b.copy().put("begin", 0).put("end", 10)
        .put("kv_addr_info", "%%%").put("recv_rank", 1)).status(), "malformed metadata");
    HttpJson.Reply early = d.http().post("/microserving/start_generate", b.copy().put("begin", 10));
    assertEquals(409, early.status(), "KV never arrived: " + early.body());
    JsonObject released = d.http().post("/microserving/release",
        new JsonObject().put("user", b.getString("user"))).json();
    assertEquals(true, released.getBoolean("released"));
    assertEquals(false, d.http().post("/microserving/release",
        new JsonObject().put("user", b.getString("user"))).json().getBoolean("released"));
    assertEquals(200, d.http().post("/v1/completions", body(prompt(5, 1), null, false, false)).status());
  }

  @Test
  void unclaimedReservationsExpire() throws Exception {
    double before = HttpJson.metric(d.http().get("/metrics").body(), "tandem_engine_parked_expired_total");
    String user = "ttl-" + (seq++);
    assertEquals(200, d.http().post("/microserving/prep_recv",
        body(prompt(50, 3), user, false, false).put("end", -1)).status());
    double expired = before;
    for (int i = 0; i < 100 && expired == before; i++) {
      Thread.sleep(100);
      expired = HttpJson.metric(d.http().get("/metrics").body(), "tandem_engine_parked_expired_total");
    }
    assertEquals(before + 1, expired);
    assertEquals(404, d.http().post("/microserving/start_generate",
        body(prompt(50, 3), user, false, false).put("begin", 49)).status());
  }
}
