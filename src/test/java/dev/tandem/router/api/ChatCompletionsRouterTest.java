package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.CHAT_TEMPLATE;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static dev.tandem.config.RouterOptions.TOOL_CALL_PARSER;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.chat.ChatRequest;
import dev.tandem.chat.ChatTemplate;
import dev.tandem.chat.SpecialTokens;
import dev.tandem.chat.TestData;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.router.RouterVerticle;
import dev.tandem.router.testing.ScriptedAnswerEngine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chat on the router in front of a named fake engine that answers with a chosen text (a
 * {@code <tool_call>} block): tool calls come back whole and streamed in both modes, the engine
 * gets the completion of the rendered prompt (token ids, never messages), bad chats are 4xx that
 * reach no engine, and the event bus serves chat. Chat answers of real engines are compared
 * with completions in ChatEndToEndIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
class ChatCompletionsRouterTest {

  static final List<String> PIECES = List.of("Let me check.", " <tool", "_call>\n{\"name\": ",
      "\"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool", "_call>");
  static final JsonArray TOOLS = new JsonArray().add(new JsonObject().put("type", "function")
      .put("function", new JsonObject().put("name", "get_weather")
          .put("parameters", new JsonObject().put("type", "object"))));

  @TempDir Path dir;
  Vertx vertx;
  WebClient web;
  ScriptedAnswerEngine engine;
  ChatTemplate template;
  int roundRobin;
  int disagg;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext ctx) throws Exception {
    this.vertx = vertx;
    web = WebClient.create(vertx);
    String source = TestData.text("templates/chatml_tools.jinja");
    Path file = Files.writeString(dir.resolve("chatml.jinja"), source);
    template = ChatTemplate.of(source, SpecialTokens.none());
    engine = new ScriptedAnswerEngine(vertx, PIECES);
    RouterOptions rr = options(file).set(ROUTER_MODE, RouterMode.ROUND_ROBIN);
    RouterOptions pd = options(file).set(ROUTER_MODE, RouterMode.DISAGG);
    engine.start()
        .compose(e -> router(rr)).onSuccess(p -> roundRobin = p)
        .compose(p -> router(pd)).onSuccess(p -> disagg = p)
        .compose(p -> {
          // two engines at the same fake: disagg sends prep_recv, remote_send and start_generate
          for (int id = 0; id < 2; id++) {
            vertx.eventBus().publish(Addresses.DEFAULT.engineStatus(), new EngineStatus(id, engine.url(),
                EngineRole.BOTH, id, 1, EngineState.READY, 0, null).toJson());
          }
          return Future.all(ready(roundRobin), ready(disagg));
        })
        .onComplete(ctx.succeedingThenComplete());
  }

  static RouterOptions options(Path template) {
    return new RouterOptions().set(ROUTER_HOST, "127.0.0.1").set(ROUTER_PORT, 0)
        .set(CHAT_TEMPLATE, template.toString()).set(TOOL_CALL_PARSER, "hermes");
  }

  Future<Integer> router(RouterOptions options) {
    RouterVerticle router = new RouterVerticle(options, new ModelInfo("fake", 100_000, 0),
        new ByteTokenizer());
    return vertx.deployVerticle(router).map(id -> router.actualPort());
  }

  /** Polls /ready until the router has both engines in rotation. */
  Future<Void> ready(int port) {
    return web.get(port, "127.0.0.1", "/ready").send().compose(r ->
        r.statusCode() == 200 && r.bodyAsJsonObject().getInteger("engines_ready") == 2
            ? Future.succeededFuture()
            : vertx.timer(20).compose(t -> ready(port)));
  }

  Future<HttpResponse<io.vertx.core.buffer.Buffer>> post(int port, JsonObject body) {
    return web.post(port, "127.0.0.1", "/v1/chat/completions").sendJsonObject(body);
  }

  static JsonObject weatherChat(boolean stream) {
    JsonObject body = new JsonObject().put("model", "fake").put("messages", new JsonArray()
            .add(new JsonObject().put("role", "user").put("content", "Weather in Paris?")))
        .put("tools", TOOLS).put("max_completion_tokens", 40).put("temperature", 0);
    if (stream) {
      body.put("stream", true).put("stream_options", new JsonObject().put("include_usage", true));
    }
    return body;
  }

  static List<JsonObject> events(String sse) {
    List<JsonObject> events = new ArrayList<>();
    for (String block : sse.split("\n\n")) {
      if (block.startsWith("data: ") && !block.equals("data: [DONE]")) {
        events.add(new JsonObject(block.substring(6)));
      }
    }
    return events;
  }

  void checkWhole(JsonObject r) {
    assertEquals("chat.completion", r.getString("object"));
    assertTrue(r.getString("id").matches("chatcmpl-[0-9a-f]{32}"), r.getString("id"));
    assertEquals("fake", r.getString("model"));
    JsonObject choice = r.getJsonArray("choices").getJsonObject(0);
    assertEquals("tool_calls", choice.getString("finish_reason"));
    JsonObject message = choice.getJsonObject("message");
    assertEquals("assistant", message.getString("role"));
    assertEquals("Let me check.", message.getString("content"));
    JsonObject call = message.getJsonArray("tool_calls").getJsonObject(0);
    assertTrue(call.getString("id").startsWith("call_"));
    assertEquals("function", call.getString("type"));
    assertEquals("get_weather", call.getJsonObject("function").getString("name"));
    assertEquals(new JsonObject().put("city", "Paris"),
        new JsonObject(call.getJsonObject("function").getString("arguments")));
    assertEquals(PIECES.size(), r.getJsonObject("usage").getInteger("completion_tokens"));
  }

  /** Streamed chunks: role first, content, one call (head then arguments), finish, usage last. */
  void checkStreamed(String sse) {
    assertTrue(sse.endsWith("data: [DONE]\n\n"));
    List<JsonObject> events = events(sse);
    StringBuilder content = new StringBuilder();
    StringBuilder arguments = new StringBuilder();
    String name = null;
    String finish = null;
    for (JsonObject e : events.subList(0, events.size() - 1)) {
      assertEquals("chat.completion.chunk", e.getString("object"));
      JsonObject c = e.getJsonArray("choices").getJsonObject(0);
      JsonObject delta = c.getJsonObject("delta");
      assertEquals(e == events.get(0), delta.containsKey("role"), "the role is in the first delta only");
      assertNull(finish, "nothing after the finish reason");
      content.append(delta.getString("content", ""));
      for (Object o : delta.getJsonArray("tool_calls", new JsonArray())) {
        JsonObject fn = ((JsonObject) o).getJsonObject("function");
        name = fn.getString("name", name);
        arguments.append(fn.getString("arguments", ""));
      }
      finish = c.getString("finish_reason");
    }
    assertEquals("Let me check.", content.toString());
    assertEquals("get_weather", name);
    assertEquals(new JsonObject().put("city", "Paris"), new JsonObject(arguments.toString()));
    assertEquals("tool_calls", finish);
    JsonObject usage = events.get(events.size() - 1);
    assertEquals(new JsonArray(), usage.getJsonArray("choices"));
    assertEquals(PIECES.size(), usage.getJsonObject("usage").getInteger("completion_tokens"));
  }

  @Test
  void toolCallsComeBackWholeAndStreamedInBothModes(VertxTestContext ctx) {
    post(roundRobin, weatherChat(false))
        .compose(r -> {
          ctx.verify(() -> checkWhole(r.bodyAsJsonObject()));
          return post(roundRobin, weatherChat(true));
        })
        .compose(r -> {
          ctx.verify(() -> checkStreamed(r.bodyAsString()));
          return post(disagg, weatherChat(false));
        })
        .compose(r -> {
          ctx.verify(() -> checkWhole(r.bodyAsJsonObject()));
          return post(disagg, weatherChat(true));
        })
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          checkStreamed(r.bodyAsString());
          List<String> paths = engine.received().stream().map(ScriptedAnswerEngine.Received::path).toList();
          assertEquals(2, paths.stream().filter(p -> p.equals("/microserving/start_generate")).count(),
              "the disagg router ran both chats through MicroServing: " + paths);
          assertEquals(2, paths.stream().filter(p -> p.equals("/v1/completions")).count(), paths.toString());
          ctx.completeNow();
        })));
  }

  @Test
  void theEngineGetsTheCompletionOfTheRenderedPromptNeverTheMessages(VertxTestContext ctx) {
    JsonObject chat = weatherChat(false).put("logprobs", true).put("top_logprobs", 3)
        .put("max_tokens", 7).put("seed", 42).put("stop", "END").put("user", "client-1").put("n", 2);
    int[] expected = new ByteTokenizer().encode(template.render(ChatRequest.parse(chat)));
    post(roundRobin, chat).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(200, r.statusCode(), r.bodyAsString());
      assertEquals(2, r.bodyAsJsonObject().getJsonArray("choices").size());
      JsonObject sent = engine.generations().get(0);
      int[] prompt = sent.getJsonArray("prompt").stream().mapToInt(o -> ((Number) o).intValue()).toArray();
      assertArrayEquals(expected, prompt, "the rendered conversation, tokenized without added tokens");
      assertEquals(40, sent.getInteger("max_tokens"), "max_completion_tokens wins over max_tokens");
      assertEquals(3, sent.getInteger("logprobs"), "chat top_logprobs as completion logprobs");
      assertEquals(42L, sent.getLong("seed"));
      assertEquals("END", sent.getString("stop"));
      assertEquals(2, sent.getInteger("n"));
      for (String chatOnly : List.of("messages", "tools", "tool_choice", "top_logprobs",
          "max_completion_tokens")) {
        assertFalse(sent.containsKey(chatOnly), chatOnly + " reached the engine");
      }
      assertFalse(sent.getString("user").equals("client-1"), "the client's user is no engine id");
      ctx.completeNow();
    })));
  }

  @Test
  void withoutToolsTheBlockIsPlainContent(VertxTestContext ctx) {
    JsonObject chat = weatherChat(false);
    chat.remove("tools");
    post(disagg, chat).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      JsonObject choice = r.bodyAsJsonObject().getJsonArray("choices").getJsonObject(0);
      assertEquals(engine.text(), choice.getJsonObject("message").getString("content"));
      assertFalse(choice.getJsonObject("message").containsKey("tool_calls"));
      assertEquals("stop", choice.getString("finish_reason"));
      ctx.completeNow();
    })));
  }

  @Test
  void badChatsAre400sThatReachNoEngine(VertxTestContext ctx) {
    JsonArray user = new JsonArray().add(new JsonObject().put("role", "user").put("content", "hi"));
    List<JsonObject> bad = List.of(
        new JsonObject(),
        new JsonObject().put("messages", new JsonArray()),
        new JsonObject().put("messages", "hi"),
        new JsonObject().put("messages", new JsonArray().add(new JsonObject().put("role", "robot").put("content", "x"))),
        new JsonObject().put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", 42))),
        new JsonObject().put("messages", new JsonArray().add(new JsonObject().put("role", "developer").put("content", "x"))),
        new JsonObject().put("messages", user).put("temperature", -1),
        new JsonObject().put("messages", user).put("top_p", 1.5),
        new JsonObject().put("messages", user).put("n", 0),
        new JsonObject().put("messages", user).put("max_completion_tokens", -1),
        new JsonObject().put("messages", user).put("logprobs", true).put("top_logprobs", 8),
        new JsonObject().put("messages", user).put("stream_options", new JsonObject().put("include_usage", true)),
        new JsonObject().put("messages", user).put("tools", TOOLS).put("tool_choice", "required"));
    List<String> params = List.of("messages", "messages", "messages", "messages[0].role",
        "messages[0].content", "messages", "temperature", "top_p", "n", "max_completion_tokens",
        "top_logprobs", "stream_options", "tool_choice");
    Future<Void> all = Future.succeededFuture();
    for (int i = 0; i < bad.size(); i++) {
      int k = i;
      all = all.compose(v -> post(k % 2 == 0 ? roundRobin : disagg, bad.get(k)).map(r -> {
        ctx.verify(() -> {
          assertEquals(400, r.statusCode(), bad.get(k) + " -> " + r.bodyAsString());
          JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
          assertEquals("invalid_request_error", error.getString("type"));
          assertEquals(params.get(k), error.getString("param"), bad.get(k).encode());
        });
        return null;
      }));
    }
    all.onComplete(ctx.succeeding(v -> ctx.verify(() -> {
      assertEquals(List.of(), engine.received(), "no bad chat reached the engine");
      ctx.completeNow();
    })));
  }

  @Test
  void aTemplateThatRaisesIsA400CarryingItsMessage(VertxTestContext ctx) {
    JsonObject chat = new JsonObject().put("messages", new JsonArray()
        .add(new JsonObject().put("role", "developer").put("content", "x")));
    post(roundRobin, chat).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(400, r.statusCode());
      JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
      assertEquals("chat_template_error", error.getString("code"));
      assertEquals("Unexpected role: developer", error.getString("message"));
      assertEquals(List.of(), engine.received());
      ctx.completeNow();
    })));
  }

  @Test
  void aRouterWithoutATemplateSaysSo(VertxTestContext ctx) {
    RouterOptions none = new RouterOptions().set(ROUTER_HOST, "127.0.0.1").set(ROUTER_PORT, 0);
    router(none).compose(port -> post(port, weatherChat(false)))
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals(400, r.statusCode());
          JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
          assertEquals("no_chat_template", error.getString("code"));
          assertTrue(error.getString("message").contains("--chat-template"), error.getString("message"));
          ctx.completeNow();
        })));
  }

  @Test
  void chatOverTheEventBusWholeAndStreamed(VertxTestContext ctx) {
    // both routers consume the address: either may answer, they answer alike
    DeliveryOptions timeout = new DeliveryOptions().setSendTimeout(10_000);
    List<JsonObject> chunks = new ArrayList<>();
    String address = "test.chat.stream";
    vertx.eventBus().<JsonObject>consumer(address, m -> {
      if (m.body().getBoolean("done", false)) {
        ctx.verify(() -> {
          assertEquals("chat.completion.chunk", chunks.get(0).getString("object"));
          StringBuilder sse = new StringBuilder();
          chunks.forEach(c -> sse.append("data: ").append(c.encode()).append("\n\n"));
          checkStreamed(sse.append("data: [DONE]\n\n").toString());
        });
        ctx.completeNow();
      } else {
        chunks.add(m.body());
      }
    });
    vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.chatCompletions(), weatherChat(false), timeout)
        .compose(reply -> {
          ctx.verify(() -> checkWhole(reply.body()));
          return vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.chatCompletions(),
              new JsonObject().put("messages", new JsonArray()), timeout)
              .<io.vertx.core.eventbus.Message<JsonObject>>transform(ar -> {
                ctx.verify(() -> {
                  assertTrue(ar.failed());
                  assertEquals(400, ((ReplyException) ar.cause()).failureCode());
                });
                return vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.chatCompletions(),
                    weatherChat(true), new DeliveryOptions().setSendTimeout(10_000).addHeader(
                        BusCompletionsEndpoint.STREAM_ADDRESS_HEADER, address));
              });
        })
        .onComplete(ctx.succeeding(reply -> ctx.verify(() ->
            assertTrue(reply.body().getString("id").startsWith("chatcmpl-")))));
  }
}
