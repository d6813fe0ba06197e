package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ApiError;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Completion chunks and responses rewritten as chat objects, and how a server loads its chat setup. */
class ChatAnswerTest {

  private static Supplier<String> ids() {
    AtomicInteger n = new AtomicInteger();
    return () -> "call_" + n.getAndIncrement();
  }

  private static JsonObject completionChunk(JsonObject... choices) {
    return new JsonObject().put("id", "cmpl-x").put("object", "text_completion").put("created", 1)
        .put("model", "m").put("choices", new JsonArray(List.of((Object[]) choices))).putNull("usage");
  }

  private static JsonObject choice(int index, String text, JsonObject logprobs, String finish) {
    return new JsonObject().put("index", index).put("text", text).put("logprobs", logprobs)
        .put("finish_reason", finish);
  }

  private static JsonObject logprobs(String token, double value, String alt, double altValue) {
    return new JsonObject().putNull("text_offset").put("token_logprobs", new JsonArray().add(value))
        .put("tokens", new JsonArray().add(token))
        .put("top_logprobs", new JsonArray().add(new JsonObject().put(token, value).put(alt, altValue)));
  }

  /** A choice's delta given by its fields makes the chunks its completion chunk makes. */
  @Test
  void aDeltasFieldsMakeTheChunksItsCompletionChunkMakes() {
    for (boolean tools : new boolean[] {false, true}) {
      ChatAnswer byJson = new ChatAnswer("chatcmpl-1", 7, "m", 2, tools, ids());
      ChatAnswer byFields = new ChatAnswer("chatcmpl-1", 7, "m", 2, tools, ids());
      JsonObject[] deltas = {choice(0, "Hi", logprobs("Hi", -0.5, "Yo", -1.5), null),
          choice(1, "", null, null), choice(1, "<tool_call>{\"name\": \"f\", \"arguments\": {}}",
              null, null), choice(0, "!", null, "stop"), choice(1, "</tool_call>", null, "stop")};
      for (JsonObject d : deltas) {
        assertEquals(byJson.chunks(completionChunk(d.copy())), byFields.chunks(d.getInteger("index"),
            d.getString("text"), d.getJsonObject("logprobs"), d.getString("finish_reason")), d.encode());
      }
    }
  }

  @Test
  void streamedChunksCarryRoleTextLogprobsFinishAndUsage() {
    ChatAnswer answer = new ChatAnswer("chatcmpl-1", 7, "m", 2, false, ids());
    List<JsonObject> out = new ArrayList<>();
    out.addAll(answer.chunks(completionChunk(choice(0, "Hi", logprobs("Hi", -0.5, "Yo", -1.5), null),
        choice(1, "", null, null))));
    out.addAll(answer.chunks(completionChunk(choice(0, "!", null, "stop"), choice(1, "Ok", null, "length"))));
    out.addAll(answer.chunks(completionChunk().put("usage", ChatResponses.usage(3, 3))));
    assertEquals(6, out.size(), "an empty delta yields nothing: " + out);
    JsonObject first = out.get(0).getJsonArray("choices").getJsonObject(0);
    assertEquals(new JsonObject().put("role", "assistant").put("content", "Hi"), first.getJsonObject("delta"));
    JsonObject lp = first.getJsonObject("logprobs").getJsonArray("content").getJsonObject(0);
    assertEquals("Hi", lp.getString("token"));
    assertEquals(-0.5, lp.getDouble("logprob"));
    assertEquals(2, lp.getJsonArray("top_logprobs").size());
    assertEquals(new JsonArray().add(72).add(105), lp.getJsonArray("bytes"));
    assertEquals(new JsonObject().put("content", "!"),
        out.get(1).getJsonArray("choices").getJsonObject(0).getJsonObject("delta"));
    assertEquals("stop", out.get(2).getJsonArray("choices").getJsonObject(0).getString("finish_reason"));
    JsonObject second = out.get(3).getJsonArray("choices").getJsonObject(0);
    assertEquals(1, second.getInteger("index"));
    assertEquals(new JsonObject().put("role", "assistant").put("content", "Ok"), second.getJsonObject("delta"));
    assertEquals("length", out.get(4).getJsonArray("choices").getJsonObject(0).getString("finish_reason"));
    JsonObject usage = out.get(5);
    assertEquals(new JsonArray(), usage.getJsonArray("choices"));
    assertEquals(6, usage.getJsonObject("usage").getInteger("total_tokens"));
    for (JsonObject c : out) {
      assertEquals("chat.completion.chunk", c.getString("object"));
      assertEquals("chatcmpl-1", c.getString("id"));
      assertEquals(7L, c.getLong("created"));
    }
  }

  @Test
  void aWholeCompletionBecomesAChatCompletionWithToolCalls() {
    JsonObject completion = completionChunk(
        choice(0, "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call>", null, "stop"),
        choice(1, "No tools needed.", logprobs("No", -0.25, "Yes", -2), "length"))
        .put("usage", ChatResponses.usage(4, 9));
    JsonObject chat = new ChatAnswer("chatcmpl-2", 9, "m", 2, true, ids()).whole(completion);
    assertEquals("chat.completion", chat.getString("object"));
    assertEquals(completion.getJsonObject("usage"), chat.getJsonObject("usage"));
    JsonObject first = chat.getJsonArray("choices").getJsonObject(0);
    assertEquals("tool_calls", first.getString("finish_reason"));
    assertEquals("Sure.", first.getJsonObject("message").getString("content"));
    JsonObject call = first.getJsonObject("message").getJsonArray("tool_calls").getJsonObject(0);
    assertEquals(new JsonObject("{\"id\":\"call_0\",\"type\":\"function\",\"function\":"
        + "{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":1}\"}}"), call);
    assertNull(first.getValue("logprobs"));
    JsonObject second = chat.getJsonArray("choices").getJsonObject(1);
    assertEquals("length", second.getString("finish_reason"));
    assertFalse(second.getJsonObject("message").containsKey("tool_calls"));
    assertEquals("No", second.getJsonObject("logprobs").getJsonArray("content").getJsonObject(0).getString("token"));
  }

  @Test
  void streamedToolCallsEqualTheWholeAnswersForAnySplit() {
    String text = "Checking. <tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call>";
    JsonObject whole = new ChatAnswer("c", 0, "m", 1, true, ids())
        .whole(completionChunk(choice(0, text, null, "stop")));
    for (int cut = 1; cut < text.length(); cut += 3) {
      ChatAnswer answer = new ChatAnswer("c", 0, "m", 1, true, ids());
      List<JsonObject> out = new ArrayList<>(answer.chunks(completionChunk(choice(0, text.substring(0, cut), null, null))));
      out.addAll(answer.chunks(completionChunk(choice(0, text.substring(cut), null, "stop"))));
      StringBuilder content = new StringBuilder();
      StringBuilder args = new StringBuilder();
      String finish = null;
      for (JsonObject c : out) {
        JsonObject ch = c.getJsonArray("choices").getJsonObject(0);
        content.append(ch.getJsonObject("delta").getString("content", ""));
        for (Object t : ch.getJsonObject("delta").getJsonArray("tool_calls", new JsonArray())) {
          args.append(((JsonObject) t).getJsonObject("function").getString("arguments", ""));
        }
        finish = ch.getString("finish_reason", finish);
      }
      JsonObject message = whole.getJsonArray("choices").getJsonObject(0).getJsonObject("message");
      assertEquals(message.getString("content"), content.toString(), "cut at " + cut);
      assertEquals(message.getJsonArray("tool_calls").getJsonObject(0).getJsonObject("function")
          .getString("arguments"), args.toString(), "cut at " + cut);
      assertEquals("tool_calls", finish);
    }
  }

  @Test
  void aServerLoadsTheGivenFileOrTheModelsTemplateOrSaysWhyNot(@TempDir Path dir) throws Exception {
    Path model = Files.createDirectories(dir.resolve("model"));
    Files.writeString(model.resolve("tokenizer_config.json"), new JsonObject()
        .put("bos_token", "<s>").put("chat_template", "{{ bos_token }}{{ messages[0]['content'] }}").encode());
    ChatRequest hi = ChatRequest.parse(new JsonObject().put("messages", new JsonArray()
        .add(new JsonObject().put("role", "user").put("content", "hi"))));
    assertEquals("<s>hi", ChatSetup.load(null, model, null).requireTemplate().render(hi));
    Path file = Files.writeString(dir.resolve("t.jinja"), "[{{ bos_token }}|{{ messages[0]['content'] }}]");
    ChatSetup fromFile = ChatSetup.load(file, model, "hermes");
    assertEquals("[<s>|hi]", fromFile.requireTemplate().render(hi), "the file wins; tokens from the model");
    assertTrue(fromFile.hermesToolCalls());

    Path bare = Files.createDirectories(dir.resolve("bare"));
    ChatSetup none = ChatSetup.load(null, bare, "none");
    ApiError e = assertThrows(ApiError.class, none::requireTemplate);
    assertEquals(400, e.status());
    assertTrue(e.getMessage().contains("--chat-template"), e.getMessage());
    Files.writeString(bare.resolve("chat_template.jinja"), "{% for %}");
    assertThrows(ApiError.class, () -> ChatSetup.load(null, bare, null).requireTemplate(),
        "a model template that does not parse serves no chat, and says so");
    Path broken = Files.writeString(dir.resolve("broken.jinja"), "{% if %}");
    assertThrows(IllegalArgumentException.class, () -> ChatSetup.load(broken, model, null),
        "a given file that does not parse stops the start");
    assertThrows(IllegalArgumentException.class, () -> ChatSetup.load(null, model, "mistral"));
  }
}
