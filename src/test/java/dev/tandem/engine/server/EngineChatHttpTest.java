package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.chat.ChatRequest;
import dev.tandem.chat.ChatSetup;
import dev.tandem.chat.ChatTemplate;
import dev.tandem.chat.SpecialTokens;
import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.engine.sched.ChainedHashModel;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.EngineOptions;
import dev.tandem.engine.sched.ForwardModel;
import dev.tandem.tokenizer.TokenizerFilesWriter;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The builtin engine's {@code /v1/chat/completions} in-process, over stand-in models: a chat's
 * answer is the completion of its rendered prompt (text, tokens, logprobs, usage), streamed chat
 * equals whole chat, tool calls come back under hermes, bad chats are 400s. The real model is
 * covered by ChatEndToEndIT.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
class EngineChatHttpTest {
  static final ChatTemplate CHATML = ChatTemplate.of(TokenizerFilesWriter.CHAT_TEMPLATE, SpecialTokens.none());
  static final String TOOL_ANSWER = "Looking.\n<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"tandem\"}}\n</tool_call>";

  Vertx vertx;
  WebClient web;
  List<Engine> engines = new ArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    web = WebClient.create(vertx);
  }

  @AfterEach
  void closeEngines() {
    engines.forEach(Engine::close);
  }

  Future<Integer> serve(ForwardModel model, ChatSetup chat) {
    Engine engine = new Engine(model, new ByteTokenizer(),
        new EngineOptions(8, 128, 64, 1024, true, Duration.ofSeconds(60)));
    engine.start();
    engines.add(engine);
    EngineServerVerticle server = new EngineServerVerticle(engine, new ByteTokenizer(), null,
        new EngineServerConfig("127.0.0.1", 0, "stand-in", false), chat);
    return vertx.deployVerticle(server).map(id -> server.actualPort());
  }

  Future<HttpResponse<Buffer>> post(int port, String path, JsonObject body) {
    return web.post(port, "127.0.0.1", path).sendJsonObject(body);
  }

  static JsonArray conversation() {
    return new JsonArray().add(new JsonObject().put("role", "system").put("content", "Be brief."))
        .add(new JsonObject().put("role", "user").put("content", "What is Tandem?"));
  }

  static List<JsonObject> events(String sse) {
    List<JsonObject> out = new ArrayList<>();
    for (String block : sse.split("\n\n")) {
      if (block.startsWith("data: ") && !block.equals("data: [DONE]")) {
        out.add(new JsonObject(block.substring(6)));
      }
    }
    return out;
  }

  static List<String> tokens(JsonObject chatLogprobs) {
    return chatLogprobs.getJsonArray("content").stream()
        .map(o -> ((JsonObject) o).getString("token")).toList();
  }

  @Test
  void aChatIsTheCompletionOfItsRenderedPromptWholeAndStreamed(VertxTestContext ctx) {
    JsonObject chat = new JsonObject().put("messages", conversation()).put("max_tokens", 9)
        .put("temperature", 0).put("logprobs", true).put("top_logprobs", 2);
    String rendered = CHATML.render(ChatRequest.parse(chat));
    JsonObject completion = new JsonObject().put("prompt", rendered).put("max_tokens", 9)
        .put("temperature", 0).put("logprobs", 2);
    JsonObject[] answers = new JsonObject[2];
    serve(new ChainedHashModel(4096), new ChatSetup(CHATML, null, false))
        .compose(port -> post(port, "/v1/completions", completion).compose(c -> {
          answers[0] = c.bodyAsJsonObject();
          return post(port, "/v1/chat/completions", chat);
        }).compose(w -> {
          answers[1] = w.bodyAsJsonObject();
          return post(port, "/v1/chat/completions", chat.copy().put("stream", true)
              .put("stream_options", new JsonObject().put("include_usage", true)));
        }))
        .onComplete(ctx.succeeding(streamed -> ctx.verify(() -> {
          JsonObject c = answers[0].getJsonArray("choices").getJsonObject(0);
          JsonObject whole = answers[1];
          assertTrue(whole.getString("id").matches("chatcmpl-[0-9a-f]{32}"), whole.getString("id"));
          assertEquals("chat.completion", whole.getString("object"));
          JsonObject w = whole.getJsonArray("choices").getJsonObject(0);
          assertEquals(c.getString("text"), w.getJsonObject("message").getString("content"));
          assertEquals(c.getString("finish_reason"), w.getString("finish_reason"));
          assertEquals(c.getJsonObject("logprobs").getJsonArray("tokens").getList(),
              tokens(w.getJsonObject("logprobs")));
          assertEquals(c.getJsonObject("logprobs").getJsonArray("token_logprobs").getList(),
              w.getJsonObject("logprobs").getJsonArray("content").stream()
                  .map(o -> ((JsonObject) o).getValue("logprob")).toList());
          assertEquals(answers[0].getJsonObject("usage").getInteger("prompt_tokens"),
              whole.getJsonObject("usage").getInteger("prompt_tokens"));
          assertEquals(9, whole.getJsonObject("usage").getInteger("completion_tokens"));

          List<JsonObject> events = events(streamed.bodyAsString());
          StringBuilder text = new StringBuilder();
          List<String> streamedTokens = new ArrayList<>();
          String finish = null;
          for (JsonObject e : events.subList(0, events.size() - 1)) {
            JsonObject ch = e.getJsonArray("choices").getJsonObject(0);
            assertEquals(e == events.get(0), ch.getJsonObject("delta").containsKey("role"));
            text.append(ch.getJsonObject("delta").getString("content", ""));
            if (ch.getJsonObject("logprobs") != null) {
              streamedTokens.addAll(tokens(ch.getJsonObject("logprobs")));
            }
            finish = ch.getString("finish_reason");
          }
          assertEquals(w.getJsonObject("message").getString("content"), text.toString());
          assertEquals(tokens(w.getJsonObject("logprobs")), streamedTokens);
          assertEquals(w.getString("finish_reason"), finish);
          assertEquals(whole.getJsonObject("usage"), events.get(events.size() - 1).getJsonObject("usage"));
          ctx.completeNow();
        })));
  }

  @Test
  void seededChoicesAndManyAlternativesMatchCompletions(VertxTestContext ctx) {
    JsonObject chat = new JsonObject().put("messages", conversation()).put("max_completion_tokens", 6)
        .put("temperature", 0.9).put("seed", 11).put("n", 2).put("logprobs", true).put("top_logprobs", 12);
    JsonObject completion = new JsonObject().put("prompt", CHATML.render(ChatRequest.parse(chat)))
        .put("max_tokens", 6).put("temperature", 0.9).put("seed", 11).put("n", 2);
    JsonObject[] c = new JsonObject[1];
    serve(new ChainedHashModel(4096), new ChatSetup(CHATML, null, false))
        .compose(port -> post(port, "/v1/completions", completion).compose(r -> {
          c[0] = r.bodyAsJsonObject();
          return post(port, "/v1/chat/completions", chat);
        }))
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          JsonArray choices = r.bodyAsJsonObject().getJsonArray("choices");
          for (int i = 0; i < 2; i++) {
            JsonObject choice = choices.getJsonObject(i);
            assertEquals(c[0].getJsonArray("choices").getJsonObject(i).getString("text"),
                choice.getJsonObject("message").getString("content"), "choice " + i);
            JsonObject first = choice.getJsonObject("logprobs").getJsonArray("content").getJsonObject(0);
            // more than completions' 5 (alternatives that decode to the same text count once)
            int alternatives = first.getJsonArray("top_logprobs").size();
            assertTrue(alternatives > 5 && alternatives <= 12, "alternatives: " + alternatives);
          }
          ctx.completeNow();
        })));
  }

  @Test
  void toolCallsComeBackWholeAndStreamedUnderHermes(VertxTestContext ctx) {
    JsonObject chat = new JsonObject().put("messages", conversation()).put("temperature", 0)
        .put("max_tokens", 200).put("tools", new JsonArray().add(new JsonObject().put("type", "function")
            .put("function", new JsonObject().put("name", "lookup"))));
    int promptLength = new ByteTokenizer().encode(CHATML.render(ChatRequest.parse(chat))).length;
    JsonObject[] whole = new JsonObject[1];
    serve(new ScriptedBytesModel(promptLength, TOOL_ANSWER), new ChatSetup(CHATML, null, true))
        .compose(port -> post(port, "/v1/chat/completions", chat).compose(r -> {
          whole[0] = r.bodyAsJsonObject();
          return post(port, "/v1/chat/completions", chat.copy().put("stream", true));
        }))
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          JsonObject choice = whole[0].getJsonArray("choices").getJsonObject(0);
          assertEquals("tool_calls", choice.getString("finish_reason"), whole[0].encode());
          JsonObject message = choice.getJsonObject("message");
          assertEquals("Looking.", message.getString("content"));
          JsonObject fn = message.getJsonArray("tool_calls").getJsonObject(0).getJsonObject("function");
          assertEquals("lookup", fn.getString("name"));
          assertEquals(new JsonObject().put("q", "tandem"), new JsonObject(fn.getString("arguments")));
          StringBuilder content = new StringBuilder();
          StringBuilder args = new StringBuilder();
          String finish = null;
          for (JsonObject e : events(r.bodyAsString())) {
            JsonObject ch = e.getJsonArray("choices").getJsonObject(0);
            content.append(ch.getJsonObject("delta").getString("content", ""));
            for (Object t : ch.getJsonObject("delta").getJsonArray("tool_calls", new JsonArray())) {
              args.append(((JsonObject) t).getJsonObject("function").getString("arguments", ""));
            }
            finish = ch.getString("finish_reason", finish);
          }
          assertEquals("Looking.", content.toString());
          assertEquals(fn.getString("arguments"), args.toString());
          assertEquals("tool_calls", finish);
          ctx.completeNow();
        })));
  }

  @Test
  void badChatsAre400s(VertxTestContext ctx) {
    JsonArray user = new JsonArray().add(new JsonObject().put("role", "user").put("content", "hi"));
    List<JsonObject> bad = List.of(new JsonObject(), new JsonObject().put("messages", new JsonArray()),
        new JsonObject().put("messages", new JsonArray().add(new JsonObject().put("role", "bot").put("content", "x"))),
        new JsonObject().put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", true))),
        new JsonObject().put("messages", user).put("top_p", 0),
        new JsonObject().put("messages", user).put("top_logprobs", 21).put("logprobs", true),
        new JsonObject().put("messages", user).put("max_tokens", 5000));
    ChatTemplate raising = ChatTemplate.of("{{ raise_exception('no chats today') }}", SpecialTokens.none());
    serve(new ChainedHashModel(4096), new ChatSetup(CHATML, null, false)).compose(port -> {
      Future<Void> all = Future.succeededFuture();
      for (JsonObject body : bad) {
        all = all.compose(v -> post(port, "/v1/chat/completions", body).map(r -> {
          ctx.verify(() -> {
            assertEquals(400, r.statusCode(), body + " -> " + r.bodyAsString());
            assertEquals("invalid_request_error", r.bodyAsJsonObject().getJsonObject("error").getString("type"));
          });
          return null;
        }));
      }
      return all;
    }).compose(v -> serve(new ChainedHashModel(4096), new ChatSetup(raising, null, false)))
        .compose(port -> post(port, "/v1/chat/completions", new JsonObject().put("messages", user)))
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals(400, r.statusCode());
          assertEquals("no chats today", r.bodyAsJsonObject().getJsonObject("error").getString("message"));
          assertFalse(r.bodyAsString().contains("chat.completion"));
          ctx.completeNow();
        })));
  }
}
