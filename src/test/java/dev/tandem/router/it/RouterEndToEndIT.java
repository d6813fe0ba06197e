package dev.tandem.router.it;

import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionChoice;
import com.openai.models.completions.CompletionCreateParams;
import dev.tandem.config.RouterMode;
import dev.tandem.bus.Addresses;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.api.BusCompletionsEndpoint;
import dev.tandem.testing.Failures;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router end to end in front of real builtin engines (1 prefill + 2 decode, one KV world,
 * started by the supervisor), through the official OpenAI Java SDK and raw HTTP: both modes give
 * the same greedy answers, load spreads, bad requests never reach an engine, a client that leaves
 * stops its engine request, the event bus serves completions, logit bias and penalties work, and
 * a decode engine killed while it streams costs no client anything (failover). One fleet for the
 * whole class; the kill test runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(VertxExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@io.vertx.junit5.Timeout(value = 150, timeUnit = TimeUnit.SECONDS)
class RouterEndToEndIT {

  @TempDir static Path dir;
  static TandemFleet fleet;
  static int disagg;
  static int roundRobin;

  @BeforeAll
  static void startFleet(Vertx vertx, VertxTestContext ctx) throws IOException {
    TandemFleet.start(vertx, dir, null, o -> o)
        .compose(started -> {
          fleet = started;
          disagg = fleet.routerPort();
          return fleet.deployRouter(new RouterOptions().set(ROUTER_MODE, RouterMode.ROUND_ROBIN));
        })
        .onComplete(ctx.succeeding(port -> {
          roundRobin = port;
          ctx.completeNow();
        }));
  }

  @AfterAll
  static void stopFleet(VertxTestContext ctx) {
    if (fleet == null) {
      ctx.completeNow();
    } else {
      fleet.close().onComplete(ctx.succeedingThenComplete());
    }
  }

  @AfterEach
  void everyCounterBackToZero() {
    fleet.awaitRouterIdle(disagg);
    fleet.awaitRouterIdle(roundRobin);
  }

  static OpenAIClient sdk(int port) {
    return OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + port + "/v1")
        .apiKey("not-needed").maxRetries(0).timeout(Duration.ofSeconds(60)).build();
  }

  /** Text, finish reason, logprob tokens and values of one choice: what "the same answer" means. */
  record Answer(String text, String finish, List<String> tokens, List<Double> logprobs) {}

  static Answer whole(OpenAIClient client, CompletionCreateParams params) {
    CompletionChoice c = client.completions().create(params).choices().get(0);
    CompletionChoice.Logprobs lp = c.logprobs().orElseThrow();
    return new Answer(c.text(), c.finishReason().asString(), lp.tokens().orElseThrow(),
        lp.tokenLogprobs().orElseThrow());
  }

  static Answer streamed(OpenAIClient client, CompletionCreateParams params) {
    StringBuilder text = new StringBuilder();
    List<String> tokens = new ArrayList<>();
    List<Double> logprobs = new ArrayList<>();
    String[] finish = new String[1];
    try (StreamResponse<Completion> stream = client.completions().createStreaming(params)) {
      stream.stream().forEach(chunk -> chunk.choices().forEach(c -> {
        text.append(c.text());
        c.logprobs().ifPresent(lp -> {
          tokens.addAll(lp.tokens().orElse(List.of()));
          logprobs.addAll(lp.tokenLogprobs().orElse(List.of()));
        });
        if (!c._finishReason().isNull() && !c._finishReason().isMissing()) {
          finish[0] = c.finishReason().asString();
        }
      }));
    }
    return new Answer(text.toString(), finish[0], tokens, logprobs);
  }

  @Test
  @Order(1)
  void sdkCompletionsAgreeAcrossModesStreamingAndNot() {
    OpenAIClient d = sdk(disagg);
    OpenAIClient rr = sdk(roundRobin);
    double sentBefore = fleet.engineMetric(0, "tandem_engine_remote_send_total");
    List<String> prompts = List.of("Hello there", "The quick brown fox jumps over the lazy dog.",
        "A longer prompt, so that the KV of many positions crosses the world. ".repeat(12));
    for (String prompt : prompts) {
      CompletionCreateParams params = CompletionCreateParams.builder().model(fleet.model.toString())
          .prompt(prompt).maxTokens(12L).temperature(0.0).logprobs(2L).build();
      Answer reference = whole(rr, params);
      assertEquals(12, reference.tokens().size());
      assertEquals("length", reference.finish());
      assertEquals(reference, streamed(rr, params), "round-robin streamed vs whole: " + prompt);
      assertEquals(reference, whole(d, params), "disagg whole vs round-robin: " + prompt);
      assertEquals(reference, streamed(d, params), "disagg streamed vs round-robin: " + prompt);
    }
    assertEquals(sentBefore + 2 * prompts.size(), fleet.engineMetric(0, "tandem_engine_remote_send_total"),
        "every disaggregated request had its prompt's KV sent by the prefill engine");
    assertTrue(fleet.engineMetric(1, "tandem_engine_kv_received_tokens_total")
        + fleet.engineMetric(2, "tandem_engine_kv_received_tokens_total") > 0);
  }

  @Test
  @Order(2)
  void echoSuffixAndUsageThroughTheSdk() {
    OpenAIClient d = sdk(disagg);
    Completion c = d.completions().create(CompletionCreateParams.builder()
        .model(fleet.model.toString()).prompt("Echo me").maxTokens(4L).temperature(0.0)
        .echo(true).suffix("!").n(2L).build());
    assertEquals(2, c.choices().size());
    for (CompletionChoice choice : c.choices()) {
      assertTrue(choice.text().startsWith("Echo me"), choice.text());
      assertTrue(choice.text().endsWith("!"), choice.text());
    }
    assertEquals(8, c.usage().orElseThrow().completionTokens());
    assertTrue(c.id().matches("cmpl-[0-9a-f]{32}"), c.id());
  }

  /**
   * A list of prompts (OpenAI's batch form, through the SDK and raw SSE) is one answer in both
   * modes: prompt k's n choices are numbered k*n to k*n+n-1, each the text the prompt gets alone,
   * echoed with its own prompt; the usage is the sum of the prompts' alone; lists of token ids
   * work as strings do.
   */
  @Test
  @Order(2)
  void aListOfPromptsAnswersEachPromptAsItWouldAlone() throws Exception {
    List<String> prompts = List.of("Hello there", "The quick brown fox jumps over the lazy dog.",
        "A third prompt, a little longer than the other two, to end the list.");
    for (int port : new int[] {roundRobin, disagg}) {
      OpenAIClient client = sdk(port);
      List<String> alone = new ArrayList<>();
      long promptTokens = 0;
      long completionTokens = 0;
      for (String prompt : prompts) {
        Completion one = client.completions().create(CompletionCreateParams.builder()
            .model(fleet.model.toString()).prompt(prompt).maxTokens(6L).temperature(0.0).build());
        alone.add(one.choices().get(0).text());
        promptTokens += one.usage().orElseThrow().promptTokens();
        completionTokens += one.usage().orElseThrow().completionTokens();
      }
      Completion all = client.completions().create(CompletionCreateParams.builder()
          .model(fleet.model.toString()).promptOfArrayOfStrings(prompts).n(2L).maxTokens(6L)
          .temperature(0.0).build());
      assertEquals(6, all.choices().size(), "port " + port);
      for (int i = 0; i < 6; i++) {
        CompletionChoice c = all.choices().get(i);
        assertEquals(i, c.index(), "choices in order, port " + port);
        assertEquals(alone.get(i / 2), c.text(), "choice " + i + ", port " + port);
      }
      assertEquals(promptTokens, all.usage().orElseThrow().promptTokens());
      assertEquals(2 * completionTokens, all.usage().orElseThrow().completionTokens());
      assertTrue(all.id().matches("cmpl-[0-9a-f]{32}"), all.id());

      Completion echoed = client.completions().create(CompletionCreateParams.builder()
          .model(fleet.model.toString()).promptOfArrayOfStrings(prompts).maxTokens(6L)
          .temperature(0.0).echo(true).build());
      for (int k = 0; k < prompts.size(); k++) {
        assertEquals(prompts.get(k) + alone.get(k), echoed.choices().get(k).text());
      }

      SseStream s = SseStream.open(fleet.http, port, new JsonObject()
          .put("prompt", new JsonArray(prompts)).put("n", 2).put("max_tokens", 6)
          .put("temperature", 0).put("stream", true)
          .put("stream_options", new JsonObject().put("include_usage", true)).encode());
      assertEquals(200, s.status);
      StringBuilder[] texts = new StringBuilder[6];
      java.util.Set<String> ids = new java.util.HashSet<>();
      JsonObject usage = null;
      int finished = 0;
      for (SseStream.Event e = s.next(30_000); e != null && !"[DONE]".equals(e.data());
          e = s.next(30_000)) {
        JsonObject chunk = new JsonObject(e.data());
        ids.add(chunk.getString("id"));
        if (chunk.getValue("usage") instanceof JsonObject u) {
          usage = u;
        }
        for (Object o : chunk.getJsonArray("choices")) {
          JsonObject c = (JsonObject) o;
          int i = c.getInteger("index");
          texts[i] = (texts[i] == null ? new StringBuilder() : texts[i]).append(c.getString("text"));
          finished += c.getString("finish_reason") != null ? 1 : 0;
        }
      }
      for (int i = 0; i < 6; i++) {
        assertEquals(alone.get(i / 2), String.valueOf(texts[i]), "streamed choice " + i);
      }
      assertEquals(6, finished, "one finish reason per choice");
      assertEquals(1, ids.size(), "one id for the whole answer: " + ids);
      assertNotNull(usage, "the usage chunk, last");
      assertEquals(promptTokens, usage.getLong("prompt_tokens").longValue());
      assertEquals(2 * completionTokens, usage.getLong("completion_tokens").longValue());

      Completion ids1 = client.completions().create(CompletionCreateParams.builder()
          .model(fleet.model.toString()).promptOfArrayOfTokens(List.of(5L, 6L, 7L, 8L))
          .maxTokens(4L).temperature(0.0).build());
      Completion idsLists = client.completions().create(CompletionCreateParams.builder()
          .model(fleet.model.toString())
          .promptOfArrayOfTokenArrays(List.of(List.of(9L, 10L), List.of(5L, 6L, 7L, 8L)))
          .maxTokens(4L).temperature(0.0).build());
      assertEquals(ids1.choices().get(0).text(), idsLists.choices().get(1).text());
      assertEquals(6, idsLists.usage().orElseThrow().promptTokens());
    }
  }

  /** A list with one bad prompt is refused as a whole, naming the prompt, before any engine runs. */
  @Test
  @Order(4)
  void aListWithABadPromptIsRefusedNamingIt() {
    double received = fleet.engineMetric(0, "tandem_engine_requests_received_total")
        + fleet.engineMetric(1, "tandem_engine_requests_received_total")
        + fleet.engineMetric(2, "tandem_engine_requests_received_total");
    HttpResponse<String> r = fleet.post(roundRobin, "/v1/completions",
        "{\"prompt\":[\"fine\",\"also fine\",\"\"],\"max_tokens\":3}");
    assertEquals(400, r.statusCode(), r.body());
    JsonObject error = new JsonObject(r.body()).getJsonObject("error");
    assertTrue(error.getString("message").startsWith("prompt 2 of the list: "), error.encode());
    assertEquals("prompt", error.getString("param"));
    String tooMany = new JsonObject().put("prompt", new JsonArray(java.util.Collections.nCopies(
        1025, "a"))).encode();
    r = fleet.post(disagg, "/v1/completions", tooMany);
    assertEquals(400, r.statusCode(), r.body());
    assertEquals("too_many_prompts", new JsonObject(r.body()).getJsonObject("error").getString("code"));
    assertEquals(received, fleet.engineMetric(0, "tandem_engine_requests_received_total")
        + fleet.engineMetric(1, "tandem_engine_requests_received_total")
        + fleet.engineMetric(2, "tandem_engine_requests_received_total"));
  }

  /**
   * The engine that streamed the answer reports its own timings in {@code usage.extra}; the router
   * passes them on (so a client can tell engine time from router time), but not the token ids it
   * keeps for its own bookkeeping.
   */
  @Test
  @Order(2)
  void theEnginesUsageRecordPassesThroughWithoutTokenIds() throws Exception {
    for (int port : new int[] {roundRobin, disagg}) {
      SseStream s = SseStream.open(fleet.http, port, new JsonObject().put("prompt", "Time me")
          .put("max_tokens", 5).put("temperature", 0).put("stream", true)
          .put("stream_options", new JsonObject().put("include_usage", true)).encode());
      assertEquals(200, s.status);
      JsonObject usage = null;
      for (SseStream.Event e = s.next(30_000); e != null && e.data() != null; e = s.next(30_000)) {
        if (!e.data().equals("[DONE]") && new JsonObject(e.data()).getValue("usage") instanceof JsonObject u) {
          usage = u;
        }
      }
      assertNotNull(usage, "a usage chunk (port " + port + ")");
      assertEquals(5, usage.getInteger("completion_tokens"));
      JsonObject extra = usage.getJsonObject("extra");
      assertNotNull(extra, "usage.extra through port " + port + ": " + usage);
      double ttft = extra.getDouble("ttft_s");
      double e2e = extra.getDouble("end_to_end_latency_s");
      assertTrue(ttft > 0 && e2e >= ttft, usage.encode());
      assertFalse(extra.containsKey("output_token_ids"), usage.encode());
    }
  }

  @Test
  @Order(2)
  void eachEnginesLoadReachesBothRoutersOverTheBus() {
    // builtin engine -> its EngineVerticle (POST /debug/dump_engine_metrics) -> tandem.engine.load
    for (int port : new int[] {disagg, roundRobin}) {
      TandemFleet.waitUntil(() -> new JsonObject(fleet.get(port, "/admin/engines").body())
          .getJsonArray("engines").stream().allMatch(o -> ((JsonObject) o).containsKey("load")),
          5_000, "load reports of every engine on router " + port);
      JsonArray engines = new JsonObject(fleet.get(port, "/admin/engines").body()).getJsonArray("engines");
      for (int e = 0; e < 3; e++) {
        JsonObject load = engines.getJsonObject(e).getJsonObject("load");
        assertNotNull(load, "engine " + e + " on router " + port + ": " + engines.getJsonObject(e));
        assertEquals(fleet.engineMetric(e, "tandem_engine_kv_pages_total"),
            load.getLong("kvPagesTotal").doubleValue(), "engine " + e);
        assertEquals(250, load.getLong("periodMs"));
        assertTrue(load.getJsonObject("metrics").containsKey("prompt_tokens_sum"), load.encode());
      }
    }
  }

  @Test
  @Order(3)
  void hundredConcurrentRequestsSpreadOverTheDecodeEngines() throws Exception {
    double before1 = fleet.engineMetric(1, "tandem_engine_start_generate_total");
    double before2 = fleet.engineMetric(2, "tandem_engine_start_generate_total");
    List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      JsonObject body = new JsonObject().put("prompt", "Request number " + i).put("max_tokens", 6)
          .put("temperature", 0).put("stream", i % 2 == 0);
      all.add(fleet.http.sendAsync(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create("http://127.0.0.1:" + disagg + "/v1/completions"))
          .timeout(Duration.ofSeconds(100)).header("content-type", "application/json")
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.encode())).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> f : all) {
      HttpResponse<String> r = f.get(100, TimeUnit.SECONDS);
      assertEquals(200, r.statusCode(), r.body());
      assertTrue(r.body().contains("\"finish_reason\":\"length\""), r.body());
    }
    double on1 = fleet.engineMetric(1, "tandem_engine_start_generate_total") - before1;
    double on2 = fleet.engineMetric(2, "tandem_engine_start_generate_total") - before2;
    assertEquals(100, on1 + on2, "every request decoded on a decode engine");
    assertTrue(on1 <= 60 && on2 <= 60, "spread: " + on1 + " / " + on2);
    fleet.awaitRouterIdle(disagg);
    assertEquals(0, fleet.engineMetric(1, "tandem_engine_parked") + fleet.engineMetric(2, "tandem_engine_parked"));
  }

  /** Bodies that must be refused before any engine sees them (raw text, so malformed JSON too). */
  static final List<String> MALFORMED = List.of(
      "{nope", "[1,2]", "", "null", "{\"max_tokens\":5}", "{\"prompt\":\"\"}", "{\"prompt\":[]}",
      "{\"prompt\":42}", "{\"prompt\":[\"a\",\"\"]}", "{\"prompt\":[\"a\",5]}", "{\"prompt\":[[1,2],[]]}",
      "{\"prompt\":[[1,2],[1,\"x\"]]}", "{\"prompt\":[[\"a\"]]}", "{\"prompt\":[1,\"x\"]}", "{\"prompt\":[1.5,2]}",
      "{\"prompt\":[5000]}", "{\"prompt\":[-1]}",
      "{\"prompt\":[" + "7,".repeat(4095) + "7]}",
      "{\"prompt\":[1,2,3],\"max_tokens\":5000}", "{\"prompt\":\"hi\",\"max_tokens\":-1}",
      "{\"prompt\":\"hi\",\"max_tokens\":\"10\"}", "{\"prompt\":\"hi\",\"temperature\":-0.5}",
      "{\"prompt\":\"hi\",\"temperature\":\"hot\"}", "{\"prompt\":\"hi\",\"top_p\":0}",
      "{\"prompt\":\"hi\",\"top_p\":1.5}", "{\"prompt\":\"hi\",\"n\":0}", "{\"prompt\":\"hi\",\"n\":\"two\"}",
      "{\"prompt\":\"hi\",\"logprobs\":6}", "{\"prompt\":\"hi\",\"logprobs\":-1}",
      "{\"prompt\":\"hi\",\"stream\":\"yes\"}", "{\"prompt\":\"hi\",\"stop\":5}",
      "{\"prompt\":\"hi\",\"stop\":[\"ok\",3]}", "{\"prompt\":\"hi\",\"best_of\":2}",
      "{\"prompt\":\"hi\",\"frequency_penalty\":3}", "{\"prompt\":\"hi\",\"presence_penalty\":-2.5}",
      "{\"prompt\":\"hi\",\"logit_bias\":{\"1\":500}}", "{\"prompt\":\"hi\",\"logit_bias\":{\"99999\":5}}",
      "{\"prompt\":\"hi\",\"top_k\":-5}", "{\"prompt\":\"hi\",\"response_format\":{\"type\":\"json_object\"}}",
      "{\"prompt\":\"hi\",\"user\":\"\"}", "{\"prompt\":\"hi\",\"echo\":\"true\"}",
      "{\"prompt\":\"hi\",\"stream_options\":\"x\"}", "{\"prompt\":\"hi\",\"debug_config\":5}",
      "{\"prompt\":\"" + "word ".repeat(9000) + "\"}");

  @Test
  @Order(4)
  void malformedRequestsGetA4xxAndNeverReachAnEngine() {
    double[] before = new double[3];
    for (int e = 0; e < 3; e++) {
      before[e] = fleet.engineMetric(e, "tandem_engine_requests_received_total");
    }
    for (int port : new int[] {disagg, roundRobin}) {
      for (String body : MALFORMED) {
        HttpResponse<String> r = fleet.post(port, "/v1/completions", body);
        String shown = body.length() > 60 ? body.substring(0, 60) + "..." : body;
        assertTrue(r.statusCode() >= 400 && r.statusCode() < 500, shown + " -> " + r.statusCode());
        JsonObject error = new JsonObject(r.body()).getJsonObject("error");
        assertNotNull(error, shown);
        assertTrue(error.getString("message").length() > 5, shown);
        assertEquals("invalid_request_error", error.getString("type"), shown);
        assertTrue(error.containsKey("param") && error.containsKey("code"), shown);
      }
      assertEquals(405, fleet.get(port, "/v1/completions").statusCode());
    }
    for (int e = 0; e < 3; e++) {
      assertEquals(before[e], fleet.engineMetric(e, "tandem_engine_requests_received_total"),
          "engine " + e + " saw none of " + MALFORMED.size() + " bad requests");
    }
    assertTrue(MALFORMED.size() >= 25);
  }

  @Test
  @Order(5)
  void aClientThatLeavesStopsItsEngineRequestAndFreesItsReservation() throws Exception {
    SseStream s = SseStream.open(fleet.http, disagg,
        new JsonObject().put("prompt", "Go on forever").put("max_tokens", 3000).put("temperature", 0)
            .put("stream", true).encode());
    assertEquals(200, s.status);
    assertNotNull(s.next(30_000).data());
    assertTrue(fleet.engineMetric(1, "tandem_engine_running") + fleet.engineMetric(2, "tandem_engine_running") >= 1);
    long closedAt = System.currentTimeMillis();
    s.close();
    TandemFleet.waitUntil(() -> fleet.engineMetric(1, "tandem_engine_running")
        + fleet.engineMetric(2, "tandem_engine_running") == 0, 1_000, "the decode engine to stop");
    long stoppedAfter = System.currentTimeMillis() - closedAt;
    assertTrue(stoppedAfter <= 1_000, "stopped after " + stoppedAfter + " ms");
    assertEquals(0, fleet.engineMetric(1, "tandem_engine_parked") + fleet.engineMetric(2, "tandem_engine_parked"));
    TandemFleet.waitUntil(() -> fleet.metrics(disagg).getOrDefault("tandem_router_clients_gone_total", 0.0) >= 1,
        2_000, "the router to count the client as gone");
  }

  @Test
  @Order(5)
  void completionsOverTheEventBusWholeAndStreaming(VertxTestContext ctx) {
    Vertx vertx = fleet.vertx;
    JsonObject request = new JsonObject().put("prompt", "Over the bus").put("max_tokens", 8)
        .put("temperature", 0);
    DeliveryOptions slow = new DeliveryOptions().setSendTimeout(60_000);
    WebClient web = WebClient.create(vertx);
    StringBuilder streamed = new StringBuilder();
    Promise<JsonObject> lastChunk = Promise.promise();
    MessageConsumer<JsonObject> chunks = vertx.eventBus().consumer("it.stream.1", m -> {
      JsonObject chunk = m.body();
      if (chunk.containsKey("done") || chunk.getValue("error") != null) {
        lastChunk.tryComplete(chunk);
        return;
      }
      for (Object c : chunk.getJsonArray("choices")) {
        streamed.append(((JsonObject) c).getString("text"));
      }
    });
    web.post(disagg, "127.0.0.1", "/v1/completions").sendJsonObject(request)
        .map(r -> r.bodyAsJsonObject().getJsonArray("choices").getJsonObject(0).getString("text"))
        .compose(httpText -> vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.completions(), request, slow)
            .compose(whole -> {
              ctx.verify(() -> {
                assertEquals(httpText, whole.body().getJsonArray("choices").getJsonObject(0).getString("text"));
                assertEquals(8, whole.body().getJsonObject("usage").getInteger("completion_tokens"));
              });
              return chunks.completion();
            })
            .compose(v -> vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.completions(),
                request.copy().put("stream", true), new DeliveryOptions(slow)
                    .addHeader(BusCompletionsEndpoint.STREAM_ADDRESS_HEADER, "it.stream.1")))
            .compose(ack -> {
              ctx.verify(() -> assertTrue(ack.body().getString("id").startsWith("cmpl-")));
              return lastChunk.future();
            })
            .compose(last -> {
              ctx.verify(() -> {
                assertNull(last.getValue("error"), last.encode());
                assertEquals(Boolean.TRUE, last.getBoolean("done"));
                assertEquals(httpText, streamed.toString());
              });
              return chunks.unregister();
            }))
        .compose(v -> Failures.of(vertx.eventBus().request(Addresses.DEFAULT.completions(),
            new JsonObject().put("n", 0), slow)))
        .eventually(() -> {
          web.close();
          return Future.succeededFuture();
        })
        .onComplete(ctx.succeeding(bad -> ctx.verify(() -> {
          ReplyException refused = (ReplyException) bad;
          assertEquals(400, refused.failureCode());
          assertNotNull(new JsonObject(refused.getMessage()).getJsonObject("error"));
          ctx.completeNow();
        })));
  }

  @Test
  @Order(6)
  void logitBiasAndPenaltiesChangeAnswersAsOpenAiDescribes() {
    JsonObject plain = new JsonObject().put("prompt", "Hello there, a story").put("max_tokens", 12)
        .put("temperature", 0);
    for (int port : new int[] {disagg, roundRobin}) {
      String answer = text(fleet.post(port, "/v1/completions", plain.encode()));
      assertEquals("yyyyyyyyyyyy", answer, "the tiny model's undisturbed answer repeats itself");
      assertEquals(">>>>>>>>>>>>", text(fleet.post(port, "/v1/completions", plain.copy()
          .put("logit_bias", new JsonObject().put("65", 100)).encode())), "token 65 ('>') forced");
      String penalized = text(fleet.post(port, "/v1/completions", plain.copy()
          .put("frequency_penalty", 2).encode()));
      assertTrue(penalized.chars().distinct().count() > 6, "repeats discouraged: " + penalized);
      assertEquals(penalized, text(fleet.post(port, "/v1/completions", plain.copy()
          .put("frequency_penalty", 2).encode())), "and still deterministic");
    }
  }

  /**
   * A decode engine added at runtime joins the builtin KV world (which grows to 4 PEs), receives
   * KV from the prefill engine, decodes answers identical to the others', and is removed again.
   */
  @Test
  @Order(6)
  void aDecodeEngineAddedAtRuntimeJoinsTheKvWorldServesAndIsRemoved() throws Exception {
    JsonObject body = new JsonObject().put("prompt", "An engine that came late " + "and then some ".repeat(8))
        .put("max_tokens", 6).put("temperature", 0);
    String expected = text(fleet.post(disagg, "/v1/completions", body.encode()));
    int port = dev.tandem.testing.FreePorts.one();
    HttpResponse<String> added = fleet.post(disagg, "/admin/engines",
        new JsonObject().put("port", port).put("role", "decode").encode());
    assertEquals(201, added.statusCode(), added.body());
    assertEquals(3, new JsonObject(added.body()).getInteger("id"));
    assertEquals(4, fleet.fleetView().getJsonObject("world").getInteger("npes"), "the world grew");
    String received = "tandem_engine_kv_received_tokens_total";
    for (int round = 0; round < 6 && fleet.metrics(port).getOrDefault(received, 0.0) == 0; round++) {
      List<CompletableFuture<HttpResponse<String>>> batch = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        batch.add(fleet.http.sendAsync(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + disagg + "/v1/completions"))
            .timeout(Duration.ofSeconds(60)).header("content-type", "application/json")
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.encode())).build(),
            HttpResponse.BodyHandlers.ofString()));
      }
      for (CompletableFuture<HttpResponse<String>> f : batch) {
        assertEquals(expected, text(f.get(60, TimeUnit.SECONDS)), "the same greedy answer everywhere");
      }
    }
    assertTrue(fleet.metrics(port).getOrDefault(received, 0.0) > 0,
        "the prefill engine shipped KV into the added engine" + fleet.diagnostics(dir));
    assertTrue(fleet.metrics(port).getOrDefault("tandem_engine_start_generate_total", 0.0) > 0);
    fleet.awaitRouterIdle(disagg);
    HttpResponse<String> removed = fleet.delete(disagg, "/admin/engines/3");
    assertEquals(200, removed.statusCode(), removed.body());
    for (int i = 0; i < 3; i++) {
      assertEquals(expected, text(fleet.post(disagg, "/v1/completions", body.encode())));
    }
  }

  static String text(HttpResponse<String> r) {
    assertEquals(200, r.statusCode(), r.body());
    return new JsonObject(r.body()).getJsonArray("choices").getJsonObject(0).getString("text");
  }

  /**
   * kill -9 of a decode engine while it streams: six greedy streams (long, ignore_eos) run on the
   * two decode engines; after every stream has delivered text, one decode engine is killed. Every
   * stream still ends with [DONE], carries no error event, and its text is the undisturbed
   * answer token for token: the router continued it on the other decode engine from prompt +
   * delivered tokens.
   */
  @Test
  @Order(7)
  void aDecodeEngineKilledWhileStreamingSixAnswersCostsNoClientAnything() throws Exception {
    // prompts whose answers stream token by token (no held-back partial characters)
    List<String> prompts = List.of("Keep talking", "Story 2: a long way", "The quick brown fox",
        "Another day", "A longer prompt, so that", "Tell me more");
    List<JsonObject> bodies = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (String prompt : prompts) {
      JsonObject body = new JsonObject().put("prompt", prompt).put("max_tokens", 1000)
          .put("temperature", 0).put("debug_config", new JsonObject().put("ignore_eos", true));
      bodies.add(body);
      expected.add(text(fleet.post(disagg, "/v1/completions", body.encode())));
    }
    double failoversBefore = fleet.metrics(disagg).getOrDefault("tandem_router_failovers_total", 0.0);
    String continued = "tandem_router_resume_attempts_total{how=\"continue\"}";
    double continuedBefore = fleet.metrics(disagg).getOrDefault(continued, 0.0);
    List<SseStream> streams = new ArrayList<>();
    List<StringBuilder> texts = new ArrayList<>();
    List<List<String>> events = new ArrayList<>();
    for (JsonObject body : bodies) {
      streams.add(SseStream.open(fleet.http, disagg, body.copy().put("stream", true).encode()));
      texts.add(new StringBuilder());
      events.add(new ArrayList<>());
    }
    for (int i = 0; i < streams.size(); i++) {
      for (int k = 0; k < 3; k++) { // every stream has delivered text before the kill
        assertNotNull(read(streams.get(i), texts.get(i), events.get(i)), "stream " + i);
      }
    }
    int victim = fleet.engineMetric(1, "tandem_engine_running") > 0 ? 1 : 2;
    long pid = fleet.enginePid(victim);
    int generation = new JsonObject(fleet.get(disagg, "/admin/engines").body()).getJsonArray("engines")
        .getJsonObject(victim).getInteger("generation", 0);
    assertTrue(ProcessHandle.of(pid).orElseThrow().destroyForcibly(), "kill -9 " + pid);

    for (int i = 0; i < streams.size(); i++) {
      String last = null;
      for (String e = read(streams.get(i), texts.get(i), events.get(i)); e != null;
          e = read(streams.get(i), texts.get(i), events.get(i))) {
        last = e;
      }
      int stream = i;
      assertEquals("[DONE]", last, () -> "stream " + stream + " ends as a whole one does"
          + fleet.diagnostics(dir));
      assertTrue(events.get(i).stream().noneMatch(e -> e.startsWith("{\"error\"")),
          "no error event in stream " + i);
      assertEquals(expected.get(i), texts.get(i).toString(), "stream " + i + " token for token");
      streams.get(i).close();
    }
    assertTrue(fleet.metrics(disagg).getOrDefault("tandem_router_failovers_total", 0.0)
        > failoversBefore, "the streams of the killed engine failed over");
    assertTrue(fleet.metrics(disagg).getOrDefault(continued, 0.0) > continuedBefore,
        "continued from prompt + delivered tokens (the engine names each chunk's token ids)");

    for (int i = 0; i < 4; i++) {
      HttpResponse<String> r = fleet.post(disagg, "/v1/completions",
          new JsonObject().put("prompt", "Still there " + i).put("max_tokens", 4).encode());
      assertEquals(200, r.statusCode(), r.body());
    }
    // the supervisor restarts it; the router takes it back when its READY event arrives
    TandemFleet.waitUntil(() -> {
      JsonArray view = new JsonObject(fleet.get(disagg, "/admin/engines").body()).getJsonArray("engines");
      JsonObject e = view.getJsonObject(victim);
      return e.getString("state").equals("READY") && e.getInteger("generation") > generation;
    }, 60_000, "engine " + victim + " back in rotation");
    for (int i = 0; i < 6 && fleet.engineMetric(victim, "tandem_engine_start_generate_total") == 0; i++) {
      assertEquals(200, fleet.post(disagg, "/v1/completions",
          new JsonObject().put("prompt", "Welcome back " + i).put("max_tokens", 3).encode()).statusCode());
    }
    assertTrue(fleet.engineMetric(victim, "tandem_engine_start_generate_total") > 0,
        "the restarted engine serves again");
  }

  /** The next data payload of {@code s} (its text appended to {@code text}), or null at its end. */
  static String read(SseStream s, StringBuilder text, List<String> events) throws Exception {
    SseStream.Event e = s.next(30_000);
    assertNotNull(e, "an event within 30 s");
    if (e.data() == null) {
      return null;
    }
    events.add(e.data());
    if (e.data().startsWith("{")) {
      for (Object c : new JsonObject(e.data()).getJsonArray("choices", new JsonArray())) {
        text.append(((JsonObject) c).getString("text"));
      }
    }
    return e.data();
  }
}
