package dev.tandem.router.it;

import org.junit.jupiter.api.extension.ExtendWith;
import io.vertx.junit5.VertxTestContext;
import io.vertx.junit5.VertxExtension;
import io.vertx.core.Vertx;
import dev.tandem.testing.TinyModel;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.ChatCompletionTokenLogprob;
import dev.tandem.bus.Addresses;
import dev.tandem.chat.ChatRequest;
import dev.tandem.chat.ChatSetup;
import dev.tandem.chat.ChatTemplate;
import dev.tandem.config.RouterMode;
import dev.tandem.config.RouterOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chat end to end on real builtin engines (the tiny model and its ChatML template; 1 prefill + 2
 * decode engines, a disagg and a round-robin router): a chat's answer equals, token for token,
 * the completion of its rendered prompt — on an engine's own /v1/chat/completions and through
 * both routers, streamed and whole, and over the event bus — and the official OpenAI Java SDK's
 * chat API works against the routers.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@io.vertx.junit5.Timeout(value = 150, timeUnit = TimeUnit.SECONDS)
class ChatEndToEndIT {

  @TempDir static Path dir;
  static TandemFleet fleet;
  static int disagg;
  static int roundRobin;
  static ChatTemplate template;

  @BeforeAll
  static void startFleet(Vertx vertx, VertxTestContext ctx) throws Exception {
    template = ChatSetup.load(null, TinyModel.shared(), null).requireTemplate();
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

  /** What "the same answer" means: text, finish reason, and every token with its logprob. */
  record Answer(String text, String finish, List<String> tokens, List<Double> logprobs) {}

  static JsonArray messages(String... turns) {
    JsonArray messages = new JsonArray().add(new JsonObject().put("role", "system")
        .put("content", "You are a terse assistant."));
    for (int i = 0; i < turns.length; i++) {
      messages.add(new JsonObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", turns[i]));
    }
    return messages;
  }

  JsonObject post(int port, String path, JsonObject body) {
    HttpResponse<String> r = fleet.post(port, path, body.encode());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return new JsonObject(r.body());
  }

  /** The completion of the rendered prompt, on a decode engine directly. */
  Answer completion(JsonObject chat) {
    String rendered = template.render(ChatRequest.parse(chat));
    JsonObject c = post(fleet.enginePort(1), "/v1/completions", new JsonObject().put("prompt", rendered)
        .put("max_tokens", chat.getInteger("max_completion_tokens")).put("temperature", 0)
        .put("logprobs", chat.getInteger("top_logprobs"))).getJsonArray("choices").getJsonObject(0);
    JsonObject lp = c.getJsonObject("logprobs");
    List<Double> values = lp.getJsonArray("token_logprobs").stream().map(v -> ((Number) v).doubleValue()).toList();
    return new Answer(c.getString("text"), c.getString("finish_reason"),
        lp.getJsonArray("tokens").getList(), values);
  }

  static void addLogprobs(JsonObject logprobs, List<String> tokens, List<Double> values) {
    if (logprobs != null) {
      for (Object o : logprobs.getJsonArray("content")) {
        tokens.add(((JsonObject) o).getString("token"));
        values.add(((JsonObject) o).getDouble("logprob"));
      }
    }
  }

  Answer wholeChat(int port, JsonObject chat) {
    JsonObject answer = post(port, "/v1/chat/completions", chat);
    assertEquals("chat.completion", answer.getString("object"));
    return whole(answer);
  }

  static Answer whole(JsonObject answer) {
    JsonObject c = answer.getJsonArray("choices").getJsonObject(0);
    List<String> tokens = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    addLogprobs(c.getJsonObject("logprobs"), tokens, values);
    return new Answer(c.getJsonObject("message").getString("content"), c.getString("finish_reason"),
        tokens, values);
  }

  Answer streamedChat(int port, JsonObject chat) {
    HttpResponse<String> r = fleet.post(port, "/v1/chat/completions", chat.copy().put("stream", true).encode());
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(r.body().endsWith("data: [DONE]\n\n"));
    StringBuilder text = new StringBuilder();
    List<String> tokens = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    String finish = null;
    boolean first = true;
    for (String block : r.body().split("\n\n")) {
      if (block.equals("data: [DONE]")) {
        continue;
      }
      JsonObject chunk = new JsonObject(block.substring("data: ".length()));
      assertEquals("chat.completion.chunk", chunk.getString("object"));
      JsonObject c = chunk.getJsonArray("choices").getJsonObject(0);
      assertEquals(first, c.getJsonObject("delta").containsKey("role"), "role in the first delta only");
      first = false;
      text.append(c.getJsonObject("delta").getString("content", ""));
      addLogprobs(c.getJsonObject("logprobs"), tokens, values);
      finish = c.getString("finish_reason");
    }
    return new Answer(text.toString(), finish, tokens, values);
  }

  @Test
  void aChatIsTheCompletionOfItsRenderedPromptOnEnginesAndBothRouters() {
    List<JsonArray> conversations = List.of(messages("Hello there"),
        messages("Name a colour.", "Blue.", "And another one, with a reason why it is a good colour?"));
    for (JsonArray conversation : conversations) {
      JsonObject chat = new JsonObject().put("model", fleet.model.toString()).put("messages", conversation)
          .put("max_completion_tokens", 10).put("temperature", 0).put("logprobs", true).put("top_logprobs", 2);
      Answer reference = completion(chat);
      assertEquals(10, reference.tokens().size());
      String what = conversation.encode();
      assertEquals(reference, wholeChat(fleet.enginePort(2), chat), "engine chat, whole: " + what);
      assertEquals(reference, streamedChat(fleet.enginePort(2), chat), "engine chat, streamed: " + what);
      assertEquals(reference, wholeChat(roundRobin, chat), "round-robin chat, whole: " + what);
      assertEquals(reference, streamedChat(roundRobin, chat), "round-robin chat, streamed: " + what);
      assertEquals(reference, wholeChat(disagg, chat), "disagg chat, whole: " + what);
      assertEquals(reference, streamedChat(disagg, chat), "disagg chat, streamed: " + what);
    }
  }

  /**
   * A long conversation, turn after turn: the router tokenizes each turn's history from the ids
   * it kept of the last turn's prompt (DjlTokenizer's PrefixIds), and every answer is still the
   * completion of the whole rendered prompt, tokenized whole by the engine.
   */
  @Test
  void aLongConversationsTurnsAreTheCompletionsOfTheirWholePrompts() {
    StringBuilder story = new StringBuilder();
    for (int i = 0; story.length() < 1500; i++) {
      story.append("Line ").append(i)
          .append(": the river was low that summer, and the town said so.\n");
    }
    List<String> turns = new ArrayList<>(List.of("Read this story.\n" + story));
    long foundBefore = fleet.tokenizer().keptBeginnings().found();
    for (int turn = 0; turn < 4; turn++) {
      JsonObject chat = new JsonObject().put("model", fleet.model.toString())
          .put("messages", messages(turns.toArray(String[]::new))).put("max_completion_tokens", 6)
          .put("temperature", 0).put("logprobs", true).put("top_logprobs", 2);
      Answer reference = completion(chat);
      Answer routed = wholeChat(turn % 2 == 0 ? roundRobin : disagg, chat);
      assertEquals(reference, routed, "turn " + turn);
      turns.add(routed.text());
      turns.add("And then, in turn " + turn + "?");
    }
    long found = fleet.tokenizer().keptBeginnings().found()
        - foundBefore;
    assertTrue(found >= 3, "the later turns found their history kept: " + found);
    HttpResponse<String> metrics = fleet.get(roundRobin, "/metrics");
    assertEquals(200, metrics.statusCode());
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("tandem_router_prompt_beginnings_total\\{result=\"found\"\\} (\\S+)")
        .matcher(metrics.body());
    assertTrue(m.find(), metrics.body());
    assertTrue(Double.parseDouble(m.group(1)) >= 3, m.group());
  }

  /**
   * /tokenize counts what a chat or a completion sends the engines (the engines' own usage says
   * so), a chat's ids are those of its rendered prompt, and /detokenize gives a text back; bad
   * bodies are 400s.
   */
  @Test
  void tokenizeGivesTheIdsEnginesAreSentAndDetokenizeTheTextBack() {
    JsonArray conversation = messages("Name a colour.", "Blue.", "And another?");
    JsonObject chatIds = post(roundRobin, "/tokenize", new JsonObject().put("messages", conversation));
    JsonObject chat = post(disagg, "/v1/chat/completions", new JsonObject()
        .put("messages", conversation).put("max_completion_tokens", 2).put("temperature", 0));
    assertEquals(chat.getJsonObject("usage").getInteger("prompt_tokens"), chatIds.getInteger("count"));
    assertEquals(chatIds.getInteger("count"), chatIds.getJsonArray("tokens").size());
    assertEquals(4096, chatIds.getInteger("max_model_len"));
    JsonObject card = new JsonObject(fleet.get(roundRobin, "/v1/models").body())
        .getJsonArray("data").getJsonObject(0);
    assertEquals(4096, card.getInteger("max_model_len"), card.encode());
    String rendered = template.render(ChatRequest.parse(new JsonObject().put("messages", conversation)));
    JsonObject textIds = post(disagg, "/tokenize", new JsonObject().put("prompt", rendered));
    assertEquals(chatIds.getJsonArray("tokens"), textIds.getJsonArray("tokens"));
    String text = "The quick brown fox jumps over the lazy dog.";
    JsonObject ids = post(roundRobin, "/tokenize", new JsonObject().put("prompt", text));
    JsonObject completion = post(fleet.enginePort(1), "/v1/completions", new JsonObject()
        .put("prompt", text).put("max_tokens", 1));
    assertEquals(completion.getJsonObject("usage").getInteger("prompt_tokens"), ids.getInteger("count"));
    assertEquals(text, post(roundRobin, "/detokenize", new JsonObject().put("tokens",
        ids.getJsonArray("tokens"))).getString("prompt"));
    for (String[] bad : new String[][] {{"/tokenize", "{}"}, {"/tokenize", "{\"prompt\":5}"},
        {"/tokenize", "[1]"}, {"/tokenize", "{\"messages\":[{\"role\":\"robot\"}]}"},
        {"/detokenize", "{\"tokens\":[1,99999]}"}, {"/detokenize", "{\"tokens\":\"hi\"}"},
        {"/detokenize", "{}"}}) {
      HttpResponse<String> r = fleet.post(roundRobin, bad[0], bad[1]);
      assertEquals(400, r.statusCode(), bad[0] + " " + bad[1] + ": " + r.body());
      assertEquals("invalid_request_error",
          new JsonObject(r.body()).getJsonObject("error").getString("type"), r.body());
    }
  }

  @Test
  void chatOverTheEventBusIsTheSameAnswer() throws Exception {
    JsonObject chat = new JsonObject().put("messages", messages("Say something on the bus."))
        .put("max_completion_tokens", 6).put("temperature", 0).put("logprobs", true).put("top_logprobs", 1);
    JsonObject answer = fleet.vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.chatCompletions(), chat,
            new DeliveryOptions().setSendTimeout(60_000))
        .toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS).body();
    assertEquals("chat.completion", answer.getString("object"));
    assertEquals(completion(chat), whole(answer));
  }

  static OpenAIClient sdk(int port) {
    return OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + port + "/v1")
        .apiKey("not-needed").maxRetries(0).timeout(Duration.ofSeconds(60)).build();
  }

  @Test
  void theOpenAiSdkChatApiWorksAgainstBothRouters() {
    ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
        .model(fleet.model.toString()).addSystemMessage("You are a terse assistant.")
        .addUserMessage("Tell me about the sea.").maxCompletionTokens(8L).temperature(0.0)
        .logprobs(true).topLogprobs(2L).build();
    Answer reference = completion(new JsonObject().put("messages", messages("Tell me about the sea."))
        .put("max_completion_tokens", 8).put("logprobs", true).put("top_logprobs", 2));
    for (int port : new int[] {roundRobin, disagg}) {
      OpenAIClient client = sdk(port);
      ChatCompletion whole = client.chat().completions().create(params);
      assertTrue(whole.id().startsWith("chatcmpl-"));
      ChatCompletion.Choice choice = whole.choices().get(0);
      List<ChatCompletionTokenLogprob> lps = choice.logprobs().orElseThrow().content().orElseThrow();
      assertEquals(reference, new Answer(choice.message().content().orElseThrow(),
          choice.finishReason().asString(), lps.stream().map(ChatCompletionTokenLogprob::token).toList(),
          lps.stream().map(ChatCompletionTokenLogprob::logprob).toList()), "SDK whole on " + port);
      assertEquals(2, lps.get(0).topLogprobs().size());
      assertEquals(8L, whole.usage().orElseThrow().completionTokens());

      StringBuilder text = new StringBuilder();
      String[] finish = new String[1];
      long[] usage = {-1};
      ChatCompletionCreateParams streaming = params.toBuilder()
          .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build();
      try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(streaming)) {
        stream.stream().forEach(chunk -> {
          chunk.choices().forEach(c -> {
            c.delta().content().ifPresent(text::append);
            c.finishReason().ifPresent(f -> finish[0] = f.asString());
          });
          chunk.usage().ifPresent(u -> usage[0] = u.completionTokens());
        });
      }
      assertEquals(reference.text(), text.toString(), "SDK streamed on " + port);
      assertEquals(reference.finish(), finish[0]);
      assertEquals(8L, usage[0]);
    }
  }
}
