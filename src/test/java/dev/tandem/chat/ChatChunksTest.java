package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ChatChunksTest {

  private static Supplier<String> ids() {
    AtomicInteger n = new AtomicInteger();
    return () -> "call_" + n.getAndIncrement();
  }

  private static JsonObject only(JsonObject chunk) {
    assertEquals("chat.completion.chunk", chunk.getString("object"));
    assertEquals("chatcmpl-1", chunk.getString("id"));
    assertEquals(1, chunk.getJsonArray("choices").size());
    return chunk.getJsonArray("choices").getJsonObject(0);
  }

  @Test
  void roleFirstFinishLastUsageAtTheEnd() {
    ChatChunks chunks = new ChatChunks("chatcmpl-1", 5, "m", 2, false, ids());
    JsonObject first = only(chunks.text(1, "Hel", null).get(0));
    assertEquals(new JsonObject("{\"index\":1,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},"
        + "\"logprobs\":null,\"finish_reason\":null}"), first);
    JsonObject second = only(chunks.text(1, "lo", List.of(new TokenLogprob("lo", -1, List.of()))).get(0));
    assertEquals(new JsonObject("{\"content\":\"lo\"}"), second.getJsonObject("delta"));
    assertEquals("lo", second.getJsonObject("logprobs").getJsonArray("content").getJsonObject(0).getString("token"));
    List<JsonObject> end = chunks.finish(1, "stop");
    assertEquals(1, end.size());
    assertEquals(new JsonObject("{\"index\":1,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}"), only(end.get(0)));
    JsonObject silent = only(chunks.finish(0, "length").get(0));
    assertEquals(new JsonObject("{\"role\":\"assistant\"}"), silent.getJsonObject("delta"),
        "a choice with no text still gets its role");
    JsonObject usage = chunks.usage(ChatResponses.usage(3, 2));
    assertEquals(new JsonArray(), usage.getJsonArray("choices"));
    assertEquals(5, usage.getJsonObject("usage").getInteger("total_tokens"));
  }

  @Test
  void toolCallsStreamAsDeltasWithIdTypeAndNameThenArguments() {
    ChatChunks chunks = new ChatChunks("chatcmpl-1", 5, "m", 1, true, ids());
    List<JsonObject> all = new ArrayList<>();
    for (String piece : List.of("On it. <tool", "_call>\n{\"name\": \"f\", ", "\"arguments\": {\"x\": 1}}\n</tool_call>")) {
      all.addAll(chunks.text(0, piece, null));
    }
    all.addAll(chunks.finish(0, "stop"));
    assertEquals(4, all.size());
    assertEquals(new JsonObject("{\"role\":\"assistant\",\"content\":\"On it.\"}"), only(all.get(0)).getJsonObject("delta"));
    assertEquals(new JsonObject("{\"tool_calls\":[{\"index\":0,\"id\":\"call_0\",\"type\":\"function\","
        + "\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}"), only(all.get(1)).getJsonObject("delta"));
    assertEquals(new JsonObject("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"x\\\":1}\"}}]}"),
        only(all.get(2)).getJsonObject("delta"));
    assertEquals("tool_calls", only(all.get(3)).getString("finish_reason"));
    assertTrue(all.subList(0, 3).stream().allMatch(c -> only(c).getValue("finish_reason") == null));
  }

  /** The streamed chunks, put together, equal the whole answer, for every split of the text. */
  @Test
  void streamedChatEqualsTheWholeChat() {
    String answer = "I'll look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n"
        + "</tool_call>\n<tool_call>{\"name\": \"search\", \"arguments\": {\"q\": \"<tool_call>\"}}</tool_call>";
    JsonObject whole = ChatResponses.completion("chatcmpl-1", 5, "m",
        List.of(ChatResponses.choice(0, answer, "stop", null, true, ids())), null)
        .getJsonArray("choices").getJsonObject(0);
    for (int split = 0; split <= answer.length(); split++) {
      ChatChunks chunks = new ChatChunks("chatcmpl-1", 5, "m", 1, true, ids());
      List<JsonObject> all = new ArrayList<>(chunks.text(0, answer.substring(0, split), null));
      all.addAll(chunks.text(0, answer.substring(split), null));
      all.addAll(chunks.finish(0, "stop"));
      assertEquals(whole, assemble(all), "split at " + split);
    }
  }

  /** What a client does with the chunks of one choice: concatenate content and arguments. */
  private static JsonObject assemble(List<JsonObject> chunks) {
    StringBuilder content = new StringBuilder();
    boolean sawContent = false;
    JsonArray calls = new JsonArray();
    String role = null;
    String finish = null;
    for (JsonObject chunk : chunks) {
      JsonObject choice = only(chunk);
      JsonObject delta = choice.getJsonObject("delta");
      if (delta.containsKey("role")) {
        assertNull(role, "the role comes once");
        role = delta.getString("role");
      }
      assertFalse(finish != null, "nothing after the finish reason");
      if (delta.getString("content") != null) {
        sawContent = true;
        content.append(delta.getString("content"));
      }
      for (Object o : delta.getJsonArray("tool_calls", new JsonArray())) {
        JsonObject d = (JsonObject) o;
        if (d.containsKey("id")) {
          calls.add(new JsonObject().put("id", d.getString("id")).put("type", d.getString("type"))
              .put("function", new JsonObject().put("name", d.getJsonObject("function").getString("name"))
                  .put("arguments", d.getJsonObject("function").getString("arguments"))));
        } else {
          JsonObject fn = calls.getJsonObject(d.getInteger("index")).getJsonObject("function");
          fn.put("arguments", fn.getString("arguments") + d.getJsonObject("function").getString("arguments"));
        }
      }
      finish = choice.getString("finish_reason");
    }
    JsonObject message = new JsonObject().put("role", role)
        .put("content", sawContent ? content.toString() : null).putNull("refusal");
    if (!calls.isEmpty()) {
      message.put("tool_calls", calls);
    }
    return new JsonObject().put("index", 0).put("message", message).putNull("logprobs").put("finish_reason", finish);
  }

  /** The byte path of a plain content delta writes exactly the SSE of the general path's chunk. */
  @Test
  void plainContentBytesAreTheFramedChunk() {
    ChatChunks chunks = new ChatChunks("chatcmpl-\"q\"\\1", 1_796_000_000L, "models/llama \u00e9", 12,
        false, ids());
    assertFalse(chunks.plainContent(11), "not before the choice's first chunk (with the role)");
    chunks.text(11, "first", null);
    assertTrue(chunks.plainContent(11));
    for (String text : new String[] {" plain", "quote \" backslash \\ slash /",
        "new\nline\ttab\r\u0001\u001f\u007f", "unicode h\u00e9llo \u2713 \ud83d\ude00", "\u2028\u2029"}) {
      dev.tandem.api.JsonBytes fast = dev.tandem.api.JsonBytes.writer().raw(new byte[] {'x'});
      assertTrue(chunks.appendContentSse(11, text, fast));
      assertEquals(dev.tandem.api.SseWriter.frame(chunks.text(11, text, null).get(0).encode()),
          fast.toBuffer().getBuffer(1, fast.length()), text);
    }
    dev.tandem.api.JsonBytes odd = dev.tandem.api.JsonBytes.writer().raw(new byte[] {'x'});
    assertFalse(chunks.appendContentSse(11, "x\ud83dy", odd),
        "a lone surrogate is left to the general path");
    assertEquals(1, odd.length(), "and nothing of it is written");
    ChatChunks tools = new ChatChunks("chatcmpl-2", 1, "m", 1, true, ids());
    tools.text(0, "a", null);
    assertFalse(tools.plainContent(0), "the tool parser may hold text back");
  }
}
