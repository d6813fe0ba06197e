package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The bytes a client of router or engine receives: framing, head, [DONE], and the two failure shapes. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class SseWriterTest {

  private record Answer(int status, String contentType, String body) {}

  /** Serves one request with {@code writer}, then fetches it and gives back what arrived. */
  private static Future<Answer> serve(Vertx vertx, Handler<SseWriter> writer) {
    return serveResponse(vertx, response -> writer.handle(new SseWriter(response)));
  }

  private static Future<Answer> serveResponse(Vertx vertx, Handler<HttpServerResponse> handler) {
    HttpServer server = vertx.createHttpServer()
        .requestHandler(req -> handler.handle(req.response()));
    return server.listen(0).compose(s -> vertx.createHttpClient()
        .request(HttpMethod.GET, s.actualPort(), "127.0.0.1", "/")
        .compose(req -> req.send())
        .compose(resp -> collect(resp))
        .eventually(() -> server.close()));
  }

  private static Future<Answer> collect(HttpClientResponse resp) {
    Buffer body = Buffer.buffer();
    resp.handler(body::appendBuffer);
    // A reset stream ends the response in failure: keep what arrived before it.
    return resp.end().transform(ar -> Future.succeededFuture(
        new Answer(resp.statusCode(), resp.getHeader("content-type"), body.toString())));
  }

  @Test
  void eventsThenUsageAndDoneInOneLastWrite(Vertx vertx, VertxTestContext ctx) {
    serve(vertx, sse -> {
      sse.write(new JsonObject().put("text", "a\nb"));
      sse.writeFramed(SseWriter.frame("{\"pre\":\"rendered\"}"));
      sse.end(new JsonObject().put("usage", 3));
      sse.write(new JsonObject().put("late", true)); // ignored after the end
    }).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(200, a.status());
      assertEquals("text/event-stream; charset=utf-8", a.contentType());
      assertEquals("data: {\"text\":\"a\\nb\"}\n\ndata: {\"pre\":\"rendered\"}\n\n"
          + "data: {\"usage\":3}\n\ndata: [DONE]\n\n", a.body());
      ctx.completeNow();
    })));
  }

  @Test
  void endWithoutALastEventIsJustDone(Vertx vertx, VertxTestContext ctx) {
    serve(vertx, sse -> sse.end(null)).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(200, a.status());
      assertEquals("text/event-stream; charset=utf-8", a.contentType());
      assertEquals("data: [DONE]\n\n", a.body());
      ctx.completeNow();
    })));
  }

  /** A stream's head is 200 whatever status was set before it, ended at once or not. */
  @Test
  void theHeadIs200WhateverWasSetBefore(Vertx vertx, VertxTestContext ctx) {
    serveResponse(vertx, response -> new SseWriter(response.setStatusCode(203)).end(null))
        .compose(ended -> serveResponse(vertx, response -> {
          SseWriter sse = new SseWriter(response.setStatusCode(203));
          sse.write(new JsonObject().put("n", 1));
          sse.end(null);
        }).map(started -> List.of(ended, started)))
        .onComplete(ctx.succeeding(answers -> ctx.verify(() -> {
          for (Answer a : answers) {
            assertEquals(200, a.status());
            assertEquals("text/event-stream; charset=utf-8", a.contentType());
          }
          ctx.completeNow();
        })));
  }

  @Test
  void failureBeforeTheFirstEventIsAStatus(Vertx vertx, VertxTestContext ctx) {
    serve(vertx, sse -> sse.fail(ApiError.invalid("prompt", "bad prompt")))
        .onComplete(ctx.succeeding(a -> ctx.verify(() -> {
          assertEquals(400, a.status());
          assertEquals("application/json", a.contentType());
          assertEquals("bad prompt", new JsonObject(a.body()).getJsonObject("error").getString("message"));
          ctx.completeNow();
        })));
  }

  @Test
  void failureAfterAnEventIsAnErrorEventWithoutDone(Vertx vertx, VertxTestContext ctx) {
    serve(vertx, sse -> {
      sse.write(new JsonObject().put("text", "partial"));
      sse.fail(ApiError.unavailable("engine_busy", "try later"));
      sse.end(null); // ignored: the stream already ended
    }).onComplete(ctx.succeeding(a -> ctx.verify(() -> {
      assertEquals(200, a.status());
      String[] events = a.body().split("\n\n");
      assertEquals(2, events.length, a.body());
      assertEquals("data: {\"text\":\"partial\"}", events[0]);
      assertTrue(events[1].startsWith("data: {\"error\":"), events[1]);
      assertEquals("engine_busy", new JsonObject(events[1].substring(SseWriter.DATA.length()))
          .getJsonObject("error").getString("code"));
      ctx.completeNow();
    })));
  }

  /** The JSON frame is what framing the encoded string gives, lone surrogates included. */
  @Test
  void jsonFrameIsTheEncodedStringFramed() {
    for (JsonObject json : new JsonObject[] {
        new JsonObject().put("a", "h\u00e9 \"q\"\n").put("n", 1.5).put("l", new JsonArray().add(7)),
        new JsonObject().put("t", "x\ud83dy")}) {
      assertEquals(SseWriter.frame(json.encode()), SseWriter.frame(json), json.encode());
    }
  }
}
