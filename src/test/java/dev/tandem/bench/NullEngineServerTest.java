package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kv.KvAppendMetadata;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The null engine answers on its schedule, with usage and its own timings, streaming or not. */
@ExtendWith(VertxExtension.class)
class NullEngineServerTest {

  private static BenchOptions options(int port, boolean stream) {
    WorkloadSpec w = new WorkloadSpec(List.of(new WorkloadClass("default", LengthDistribution.parse("12"),
        LengthDistribution.parse("5"), 1)), PromptKind.IDS, 100, 3, null, 1);
    return new BenchOptions("http://127.0.0.1:" + port, null, stream, true, 8, 0, 40, 0, 0, 0, 64, 10_000, w,
        Double.NaN, Double.NaN, false);
  }

  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void answersOnScheduleWithUsageAndEngineTimings(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 30, 4, new AtomicInteger());
    PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
    vertx.deployVerticle(server)
        .compose(id -> Future.<BenchReport>future(p -> new Thread(() ->
            BenchRunner.run(vertx, options(server.actualPort(), true), nowhere).onComplete(p)).start()))
        .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
          GroupStats g = report.overall();
          assertEquals(40, g.ok());
          assertEquals(200, g.outputTokens());
          assertEquals(480, g.promptTokens());
          assertTrue(g.tokensFromUsage());
          assertTrue(g.ttft().p50() >= 30, "ttft " + g.ttft());
          assertTrue(g.tpot().p50() >= 4, "tpot " + g.tpot());
          assertEquals(40, g.outsideEngineE2e().count(), "its usage carries its own timings");
          assertTrue(g.outsideEngineE2e().p50() >= 0 && g.outsideEngineE2e().p50() < g.e2e().p50());
          ctx.completeNow();
        })));
  }

  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void nonStreaming(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 10, 2, new AtomicInteger());
    PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
    vertx.deployVerticle(server)
        .compose(id -> Future.<BenchReport>future(p -> new Thread(() ->
            BenchRunner.run(vertx, options(server.actualPort(), false), nowhere).onComplete(p)).start()))
        .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
          assertEquals(40, report.overall().ok());
          assertEquals(200, report.overall().outputTokens());
          assertTrue(report.overall().e2e().p50() >= 10 + 4 * 2);
          ctx.completeNow();
        })));
  }

  @Test
  @Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
  void reportsItsRunningCountWhereEngineVerticlesReadLoad(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 10, 2, new AtomicInteger(3));
    WebClient http = WebClient.create(vertx);
    vertx.deployVerticle(server)
        .compose(id -> http.post(server.actualPort(), "127.0.0.1", "/debug/dump_engine_metrics")
            .sendJsonObject(new JsonObject()))
        .onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
          JsonObject metrics = resp.bodyAsJsonObject().getJsonObject("metrics");
          assertEquals(3, metrics.getInteger("running"));
          assertEquals(0, metrics.getInteger("waiting"));
          assertEquals(100_000, metrics.getInteger("kv_pages_total"));
          ctx.completeNow();
        })));
  }

  private static Future<HttpResponse<Buffer>> post(WebClient http, int port, String body) {
    return post(http, port, "/v1/completions", body);
  }

  private static Future<HttpResponse<Buffer>> post(WebClient http, int port, String path, String body) {
    return http.post(port, "127.0.0.1", path).timeout(5_000)
        .putHeader("content-type", "application/json").sendBuffer(Buffer.buffer(body));
  }

  /** MLC's three MicroServing calls, answered at no cost the way an MLC engine answers them. */
  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void answersTheMicroServingCalls(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 0, 0, new AtomicInteger());
    WebClient http = WebClient.create(vertx);
    String request = "\"prompt\":[1,2,3,4,5],\"max_tokens\":3,\"user\":\"r1\"";
    vertx.deployVerticle(server).compose(id -> {
      int port = server.actualPort();
      return Future.all(List.of(
          post(http, port, "/microserving/prep_recv", "{" + request + ",\"end\":-1}"),
          post(http, port, "/microserving/prep_recv", "{" + request + ",\"end\":5}"),
          post(http, port, "/microserving/remote_send", "{" + request
              + ",\"begin\":0,\"end\":4,\"kv_addr_info\":\"x\",\"recv_rank\":1}"),
          post(http, port, "/microserving/remote_send", "{" + request + "}"),
          post(http, port, "/microserving/start_generate", "{" + request
              + ",\"begin\":4,\"stream\":true}")))
          .map(all -> all.<HttpResponse<Buffer>>list());
    }).onComplete(ctx.succeeding(answers -> ctx.verify(() -> {
      JsonObject prep = answers.get(0).bodyAsJsonObject();
      assertEquals(0, prep.getInteger("prefix_matched_length"), prep.encode());
      // end -1 of 5 tokens: positions 0..3, one slot each
      assertEquals(List.of(0, 1, 2, 3), Arrays.stream(
          KvAppendMetadata.decode(prep.getString("kv_append_metadata"))).boxed().toList());
      assertEquals(400, answers.get(1).statusCode(), "the last token is always D's");
      assertTrue(answers.get(1).bodyAsString().contains("outside [0, 5)"), answers.get(1).bodyAsString());
      assertEquals("{}", answers.get(2).bodyAsString());
      assertEquals(400, answers.get(3).statusCode(), answers.get(3).bodyAsString());
      List<String> streamed = events(answers.get(4).bodyAsString());
      assertEquals(4, streamed.size(), "3 tokens and [DONE]: " + streamed);
      ctx.completeNow();
    })));
  }

  /** The data of each SSE event of {@code body}. */
  private static List<String> events(String body) {
    List<String> out = new ArrayList<>();
    for (String event : body.split("\n\n")) {
      if (event.startsWith("data: ")) {
        out.add(event.substring("data: ".length()));
      }
    }
    return out;
  }

  /**
   * Every valid body is answered: optional fields may be JSON null ({@code "stream_options": null}
   * used to throw inside the body handler, and the connection hung).
   */
  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void answersBodiesWithNullOptionalFields(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 0, 0, new AtomicInteger());
    WebClient http = WebClient.create(vertx);
    String[] bodies = {
        "{\"prompt\":[1,2,3],\"max_tokens\":4,\"stream\":true,\"stream_options\":null}",
        "{\"prompt\":[1,2,3],\"max_tokens\":4,\"stream\":true,\"stream_options\":{\"include_usage\":null}}",
        "{\"prompt\":[1,2,3],\"max_tokens\":4,\"stream\":null,\"stream_options\":null}",
        "{\"prompt\":null,\"max_tokens\":4,\"stream\":false}",
        "{\"prompt\":\"a b c\",\"max_tokens\":4,\"stream\":true,\"stream_options\":{\"include_usage\":true}}",
    };
    vertx.deployVerticle(server).compose(id -> {
      List<Future<HttpResponse<Buffer>>> answers = new ArrayList<>();
      for (String b : bodies) {
        answers.add(post(http, server.actualPort(), b));
      }
      return Future.all(answers).map(all -> answers.stream().map(Future::result).toList());
    }).onComplete(ctx.succeeding(answers -> ctx.verify(() -> {
      for (int i = 0; i < bodies.length; i++) {
        assertEquals(200, answers.get(i).statusCode(), bodies[i] + ": " + answers.get(i).bodyAsString());
      }
      List<String> streamed = events(answers.get(0).bodyAsString());
      assertEquals(5, streamed.size(), "4 tokens and [DONE], no usage: " + streamed);
      assertEquals("[DONE]", streamed.get(4));
      assertEquals(4, new JsonObject(answers.get(2).bodyAsString()).getJsonArray("choices")
          .getJsonObject(0).getString("text").length(), "stream: null is not streaming");
      List<String> withUsage = events(answers.get(4).bodyAsString());
      assertEquals(6, withUsage.size(), "4 tokens, usage, [DONE]: " + withUsage);
      JsonObject usage = new JsonObject(withUsage.get(4)).getJsonObject("usage");
      assertEquals(3, usage.getInteger("prompt_tokens"));
      assertEquals(4, usage.getInteger("completion_tokens"));
      assertNotNull(usage.getJsonObject("extra").getDouble("ttft_s"));
      ctx.completeNow();
    })));
  }

  /** A body it cannot serve is refused with a 400, never left unanswered. */
  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void refusesBadBodiesWith400(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 0, 0, new AtomicInteger());
    WebClient http = WebClient.create(vertx);
    String[] bodies = {"[1,2]", "{\"max_tokens\":null}", "{\"max_tokens\":2,\"stream\":\"yes\"}",
        "{\"max_tokens\":2,\"stream\":true,\"stream_options\":[1]}", "not json"};
    vertx.deployVerticle(server).compose(id -> {
      List<Future<HttpResponse<Buffer>>> answers = new ArrayList<>();
      for (String b : bodies) {
        answers.add(post(http, server.actualPort(), b));
      }
      return Future.all(answers).map(all -> answers.stream().map(Future::result).toList());
    }).onComplete(ctx.succeeding(answers -> ctx.verify(() -> {
      for (int i = 0; i < bodies.length; i++) {
        assertEquals(400, answers.get(i).statusCode(), bodies[i] + ": " + answers.get(i).bodyAsString());
      }
      ctx.completeNow();
    })));
  }

  /**
   * With no delays the whole stream is one response of known length, written at once (not a
   * chunked stream spaced by timer ticks): 16 tokens, the usage record and [DONE].
   */
  @Test
  @Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
  void zeroDelaysWriteTheWholeStreamAtOnce(Vertx vertx, VertxTestContext ctx) {
    NullEngineServer server = new NullEngineServer("127.0.0.1", 0, 0, 0, new AtomicInteger());
    vertx.deployVerticle(server).compose(id -> vertx.executeBlocking(() -> {
      String body = "{\"prompt\":[1,2,3,4],\"max_tokens\":16,\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true}}";
      try (Socket socket = new Socket("127.0.0.1", server.actualPort())) {
        socket.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: x\r\n"
            + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
            .getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        while (!got.toString(StandardCharsets.UTF_8).contains("data: [DONE]\n\n")) {
          int n = in.read(buf);
          if (n < 0) {
            break;
          }
          got.write(buf, 0, n);
        }
        return got.toString(StandardCharsets.UTF_8);
      }
    })).onComplete(ctx.succeeding(response -> ctx.verify(() -> {
      String head = response.substring(0, response.indexOf("\r\n\r\n")).toLowerCase();
      String body = response.substring(response.indexOf("\r\n\r\n") + 4);
      assertTrue(head.startsWith("http/1.1 200"), head);
      assertTrue(head.contains("content-type: text/event-stream"), head);
      assertTrue(head.contains("content-length: " + body.getBytes(StandardCharsets.UTF_8).length), head);
      assertFalse(head.contains("chunked"), head);
      List<String> events = events(body);
      assertEquals(18, events.size(), "16 tokens, usage, [DONE]");
      for (int i = 0; i < 16; i++) {
        JsonObject choice = new JsonObject(events.get(i)).getJsonArray("choices").getJsonObject(0);
        assertEquals("x", choice.getString("text"));
        assertEquals(i == 15 ? "length" : null, choice.getString("finish_reason"));
      }
      JsonObject last = new JsonObject(events.get(16));
      assertEquals(new JsonArray(), last.getJsonArray("choices"));
      assertEquals(20, last.getJsonObject("usage").getInteger("total_tokens"));
      ctx.completeNow();
    })));
  }
}
