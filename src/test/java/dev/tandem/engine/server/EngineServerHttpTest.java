package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.engine.sched.ChainedHashModel;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.EngineOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The engine's HTTP layer in-process (response shapes, SSE framing, validation, disconnects),
 * over a KV-chained stand-in model so it runs in milliseconds; the real model is covered by the
 * process tests (*IT).
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS) // the deployment in start()
class EngineServerHttpTest {
  private static Engine engine;
  private static ChainedHashModel model;
  private static HttpJson http;
  private static int port;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) throws Exception {
    model = new ChainedHashModel(4096);
    engine = new Engine(model, new ByteTokenizer(),
        new EngineOptions(8, 128, 64, 512, true, Duration.ofSeconds(60)));
    engine.start();
    EngineServerVerticle server = new EngineServerVerticle(engine, new ByteTokenizer(), null,
        new EngineServerConfig("127.0.0.1", 0, "stand-in", true));
    vertx.deployVerticle(server).onComplete(ctx.succeeding(id -> {
      port = server.actualPort();
      http = new HttpJson("127.0.0.1", port);
      ctx.completeNow();
    }));
  }

  @AfterAll
  static void stop() throws Exception {
    engine.close(); // the server goes with the extension's Vert.x
  }

  @Test
  void modelsListsTheServedModel() throws Exception {
    JsonObject r = http.get("/v1/models").json();
    assertEquals("list", r.getString("object"));
    assertEquals("stand-in", r.getJsonArray("data").getJsonObject(0).getString("id"));
  }

  @Test
  void nonStreamingResponseHasMlcsShape() throws Exception {
    HttpJson.Reply reply = http.post("/v1/completions",
        "{\"prompt\":[1,2,3,4,5],\"max_tokens\":6,\"temperature\":0,\"debug_config\":{\"ignore_eos\":true}}");
    assertEquals(200, reply.status());
    JsonObject r = reply.json();
    assertEquals(List.of("id", "choices", "created", "model", "object", "usage"), List.copyOf(r.fieldNames()));
    assertTrue(r.getString("id").matches("cmpl-[0-9a-f]{32}"));
    assertTrue(r.containsKey("model") && r.getValue("model") == null);
    JsonObject choice = r.getJsonArray("choices").getJsonObject(0);
    assertEquals(List.of("finish_reason", "index", "logprobs", "text"), List.copyOf(choice.fieldNames()));
    assertEquals("length", choice.getString("finish_reason"));
    assertNull(choice.getValue("logprobs"));
    JsonObject usage = r.getJsonObject("usage");
    assertEquals(5, usage.getInteger("prompt_tokens"));
    assertEquals(6, usage.getInteger("completion_tokens"));
    assertEquals(11, usage.getInteger("total_tokens"));
    assertArrayEquals(ChainedHashModel.reference(new int[] {1, 2, 3, 4, 5}, 6), HttpJson.outputIds(r).get(0));
    assertEquals(5, usage.getJsonObject("extra").getInteger("prefill_tokens"));
  }

  @Test
  void streamingIsFramedLikeMlcWithUsageLast() throws Exception {
    JsonObject req = new JsonObject().put("prompt", new JsonArray(List.of(9, 8, 7))).put("max_tokens", 5)
        .put("temperature", 0).put("stream", true).put("n", 2).put("logprobs", 2).put("echo", true)
        .put("user", "stream-1").put("stream_options", new JsonObject().put("include_usage", true))
        .put("debug_config", new JsonObject().put("ignore_eos", true));
    HttpJson.Reply reply = http.post("/v1/completions", req);
    assertEquals(200, reply.status());
    List<JsonObject> events = reply.events();
    JsonObject echo = events.get(0);
    assertEquals(2, echo.getJsonArray("choices").size());
    JsonObject last = events.get(events.size() - 1);
    assertEquals(0, last.getJsonArray("choices").size());
    assertEquals(10, last.getJsonObject("usage").getInteger("completion_tokens"));
    int[] lpCount = new int[2];
    String[] finish = new String[2];
    for (JsonObject e : events.subList(1, events.size() - 1)) {
      assertEquals("stream-1", e.getString("id"));
      assertTrue(e.containsKey("usage") && e.getValue("usage") == null);
      for (Object o : e.getJsonArray("choices")) {
        JsonObject c = (JsonObject) o;
        int i = c.getInteger("index");
        JsonObject lp = c.getJsonObject("logprobs");
        lpCount[i] += lp.getJsonArray("token_logprobs").size();
        assertEquals(lp.getJsonArray("tokens").size(), lp.getJsonArray("top_logprobs").size());
        if (c.getString("finish_reason") != null) {
          finish[i] = c.getString("finish_reason");
        }
      }
    }
    assertArrayEquals(new int[] {5, 5}, lpCount);
    assertArrayEquals(new String[] {"length", "length"}, finish);
  }

  @Test
  void badRequestsGet400sAndTheServerKeepsServing() throws Exception {
    String[] bad = {
        "{nope", "{}", "{\"prompt\":\"\"}", "{\"prompt\":[]}", "{\"prompt\":[300]}",
        "{\"prompt\":[1],\"max_tokens\":-1}", "{\"prompt\":[1],\"max_tokens\":600}",
        "{\"prompt\":[1],\"temperature\":-1}", "{\"prompt\":[1],\"top_p\":0}", "{\"prompt\":[1],\"top_p\":2}",
        "{\"prompt\":[1],\"n\":0}", "{\"prompt\":[1],\"logprobs\":6}", "{\"prompt\":[1],\"stream\":1}",
        "{\"prompt\":" + new JsonArray(java.util.Collections.nCopies(600, 1)).encode() + "}",
    };
    for (String body : bad) {
      HttpJson.Reply r = http.post("/v1/completions", body);
      assertEquals(400, r.status(), body);
      JsonObject error = r.json().getJsonObject("error");
      assertEquals("invalid_request_error", error.getString("type"), body);
      assertTrue(error.containsKey("param") && error.containsKey("code"), body);
    }
    assertEquals(200, http.post("/v1/completions", "{\"prompt\":\"ok\",\"max_tokens\":2}").status());
  }

  @Test
  void duplicateRunningIdIsAConflict() throws Exception {
    model.stepDelayMillis = 2;
    try {
      Thread slow = new Thread(() -> {
        try {
          http.post("/v1/completions", "{\"prompt\":[1,2],\"max_tokens\":300,\"user\":\"same\",\"debug_config\":{\"ignore_eos\":true}}");
        } catch (Exception ignored) {
          // the assertion below is what matters
        }
      });
      slow.start();
      for (int i = 0; i < 200 && HttpJson.metric(http.get("/metrics").body(), "tandem_engine_running") < 1; i++) {
        Thread.sleep(5);
      }
      HttpJson.Reply second = http.post("/v1/completions", "{\"prompt\":[1],\"max_tokens\":1,\"user\":\"same\"}");
      assertEquals(409, second.status());
      assertEquals("user", second.json().getJsonObject("error").getString("param"));
      slow.join();
    } finally {
      model.stepDelayMillis = 0;
    }
  }

  @Test
  void microServingWithoutAWorldSaysSo() throws Exception {
    for (String path : new String[] {"prep_recv", "remote_send", "start_generate", "release"}) {
      HttpJson.Reply r = http.post("/microserving/" + path, "{\"prompt\":[1,2,3],\"user\":\"x\",\"end\":-1}");
      assertEquals(503, r.status(), path);
      assertTrue(r.json().getJsonObject("error").getString("message").contains("MLC_NVSHMEM_INIT_CONFIG_JSON_STR"));
    }
  }

  @Test
  void clientDisconnectAbortsAndFreesKv() throws Exception {
    // slow steps keep the request running well past the disconnect (400 tokens take > 1 s)
    model.stepDelayMillis = 3;
    try {
      try (Socket s = new Socket("127.0.0.1", port)) {
        String body = "{\"prompt\":[5,6,7],\"max_tokens\":400,\"stream\":true,\"user\":\"gone\",\"debug_config\":{\"ignore_eos\":true}}";
        s.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        int n = in.read(buf);
        assertTrue(new String(buf, 0, n, StandardCharsets.US_ASCII).contains("data: "));
      }
      String metrics = "";
      for (int i = 0; i < 200; i++) {
        metrics = http.get("/metrics").body();
        if (HttpJson.metric(metrics, "tandem_engine_running") == 0
            && HttpJson.metric(metrics, "tandem_engine_requests_aborted_total") >= 1) {
          break;
        }
        Thread.sleep(10);
      }
      assertEquals(0, HttpJson.metric(metrics, "tandem_engine_running"));
      assertTrue(HttpJson.metric(metrics, "tandem_engine_requests_aborted_total") >= 1);
      assertEquals(128, HttpJson.metric(metrics, "tandem_engine_kv_pages_free")
          + HttpJson.metric(metrics, "tandem_engine_kv_pages_cached"));
    } finally {
      model.stepDelayMillis = 0;
    }
    // the id is free again
    assertEquals(200, http.post("/v1/completions", "{\"prompt\":[1],\"max_tokens\":1,\"user\":\"gone\"}").status());
  }

  @Test
  void metricsCountRequestsEvenWhenRefused() throws Exception {
    double before = HttpJson.metric(http.get("/metrics").body(), "tandem_engine_requests_received_total");
    http.post("/v1/completions", "{}");
    String text = http.get("/metrics").body();
    assertEquals(before + 1, HttpJson.metric(text, "tandem_engine_requests_received_total"));
    assertEquals(128, HttpJson.metric(text, "tandem_engine_kv_pages_total"));
    assertTrue(text.contains("# TYPE tandem_engine_running gauge"));
    dev.tandem.engine.model.CoreBudget cores = dev.tandem.engine.model.CoreBudget.all();
    assertEquals(cores.threads(), HttpJson.metric(text,
        "tandem_engine_compute_threads{cpus=\"" + cores.cpuList() + "\",pinned=\"false\"}"), text);
    JsonObject dump = http.post("/debug/dump_engine_metrics", "{}").json().getJsonObject("metrics");
    assertTrue(dump.containsKey("prefill_tokens_sum") && dump.containsKey("kv_pages_free"));
  }
}
