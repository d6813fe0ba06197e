package dev.tandem.router.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A FAKE engine for router tests that need a chosen answer text (a model cannot be made to write a
 * {@code <tool_call>} block on demand): every generation ({@code /v1/completions} or
 * {@code /microserving/start_generate}) streams the scripted pieces, one SSE chunk each, to every
 * choice, then {@code finish_reason: "stop"}, the usage record and {@code [DONE]}, as the builtin
 * engine frames them. {@code prep_recv} and {@code remote_send} succeed at once. Every request it
 * receives is recorded, so a test can assert that nothing reached it.
 */
public final class ScriptedAnswerEngine {

  /** One request the fake received. */
  public record Received(String path, JsonObject body) {}

  private final Vertx vertx;
  private final List<String> pieces;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private HttpServer server;

  public ScriptedAnswerEngine(Vertx vertx, List<String> pieces) {
    this.vertx = vertx;
    this.pieces = List.copyOf(pieces);
  }

  public Future<ScriptedAnswerEngine> start() {
    server = vertx.createHttpServer().requestHandler(this::handle);
    return server.listen(0, "127.0.0.1").map(s -> this);
  }

  public Future<Void> stop() {
    return server.close();
  }

  public String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** Every request so far, in order. */
  public List<Received> received() {
    return List.copyOf(received);
  }

  /** The generation requests so far ({@code /v1/completions}, {@code start_generate}). */
  public List<JsonObject> generations() {
    return received.stream().filter(r -> r.path().equals("/v1/completions")
        || r.path().equals("/microserving/start_generate")).map(Received::body).toList();
  }

  /** The answer's whole text, as the scripted pieces make it. */
  public String text() {
    return String.join("", pieces);
  }

  private void handle(HttpServerRequest req) {
    req.body().onSuccess(buf -> {
      JsonObject body = buf.length() == 0 ? new JsonObject() : buf.toJsonObject();
      received.add(new Received(req.path(), body));
      HttpServerResponse resp = req.response().putHeader("content-type", "application/json");
      switch (req.path()) {
        case "/v1/completions", "/microserving/start_generate" -> stream(body, resp);
        case "/microserving/prep_recv" -> resp.end(new JsonObject()
            .put("kv_append_metadata", "AwAAAAAAAABbMF0=").put("prefix_matched_length", 0).encode());
        case "/microserving/remote_send" -> resp.end("{}");
        case "/microserving/release" -> resp.end(new JsonObject().put("user", body.getString("user"))
            .put("released", false).encode());
        default -> resp.setStatusCode(404).end(new JsonObject().put("error", new JsonObject()
            .put("message", "no route " + req.path()).put("type", "invalid_request_error")).encode());
      }
    });
  }

  private void stream(JsonObject body, HttpServerResponse resp) {
    int n = body.getInteger("n", 1);
    int prompt = body.getJsonArray("prompt", new JsonArray()).size();
    String id = body.getString("user");
    resp.setChunked(true).putHeader("content-type", "text/event-stream");
    for (int p = 0; p < pieces.size(); p++) {
      JsonArray choices = new JsonArray();
      for (int i = 0; i < n; i++) {
        choices.add(new JsonObject().put("index", i).put("text", pieces.get(p)).putNull("logprobs")
            .put("finish_reason", p == pieces.size() - 1 ? "stop" : null));
      }
      resp.write(sse(chunk(id, choices, null)));
    }
    JsonArray ids = new JsonArray();
    for (int i = 0; i < n; i++) {
      List<Object> tokens = new ArrayList<>();
      for (int p = 0; p < pieces.size(); p++) {
        tokens.add(100 + p);
      }
      ids.add(new JsonArray(tokens));
    }
    JsonObject usage = new JsonObject().put("prompt_tokens", prompt)
        .put("completion_tokens", n * pieces.size()).put("total_tokens", prompt + n * pieces.size())
        .put("extra", new JsonObject().put("output_token_ids", ids));
    resp.write(sse(chunk(id, new JsonArray(), usage)));
    resp.end("data: [DONE]\n\n");
  }

  private static JsonObject chunk(String id, JsonArray choices, JsonObject usage) {
    return new JsonObject().put("id", id).put("object", "text_completion").put("created", 0)
        .putNull("model").put("choices", choices).put("usage", usage);
  }

  private static String sse(JsonObject chunk) {
    return "data: " + chunk.encode() + "\n\n";
  }
}
