package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChatResponsesTest {

  @Test
  void aWholeAnswerInTheChatCompletionShape() {
    List<TokenLogprob> logprobs = List.of(new TokenLogprob("Hé", -0.25,
        List.of(new TokenLogprob.Alternative("Hé", -0.25), new TokenLogprob.Alternative("Hi", -1.5))));
    JsonObject r = ChatResponses.completion("chatcmpl-1", 1730000000L, "m",
        List.of(ChatResponses.choice(0, "Hé", "stop", logprobs, false, () -> "unused"),
            ChatResponses.choice(1, "", "length", null, false, () -> "unused")),
        ChatResponses.usage(7, 3));
    assertEquals(new JsonObject("""
        {"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"m","choices":[
          {"index":0,"message":{"role":"assistant","content":"Hé","refusal":null},
           "logprobs":{"content":[{"token":"Hé","logprob":-0.25,"bytes":[72,195,169],"top_logprobs":[
             {"token":"Hé","logprob":-0.25,"bytes":[72,195,169]},{"token":"Hi","logprob":-1.5,"bytes":[72,105]}]}],
             "refusal":null},
           "finish_reason":"stop"},
          {"index":1,"message":{"role":"assistant","content":"","refusal":null},"logprobs":null,
           "finish_reason":"length"}],
         "usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}"""), r);
  }

  @Test
  void toolCallsGoToTheMessageAndFinishAsToolCalls() {
    ChatResponses.Choice c = ChatResponses.choice(0,
        "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>", "stop", null, true, () -> "call_x");
    JsonObject message = ChatResponses.completion("id", 1, null, List.of(c), null)
        .getJsonArray("choices").getJsonObject(0).getJsonObject("message");
    assertEquals(new JsonObject("""
        {"role":"assistant","content":null,"refusal":null,"tool_calls":[
          {"id":"call_x","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}]}"""), message);
    assertEquals("tool_calls", c.finishReason());
    assertEquals("length", ChatResponses.choice(0, "<tool_call>{\"name\":\"f\"}</tool_call>", "length", null,
        true, () -> "c").finishReason(), "a cut-off answer stays 'length'");
    assertEquals("stop", ChatResponses.choice(0, "no calls", "stop", null, true, () -> "c").finishReason());
  }

  @Test
  void completionLogprobsBecomeChatLogprobs() {
    JsonObject completion = new JsonObject("""
        {"text_offset":null,"token_logprobs":[-0.5,-1.0],"tokens":["a"," b"],
         "top_logprobs":[{"a":-0.5,"c":-2.0},{}]}""");
    List<TokenLogprob> tokens = TokenLogprob.fromCompletion(completion);
    assertEquals(List.of(new TokenLogprob("a", -0.5, List.of(new TokenLogprob.Alternative("a", -0.5),
        new TokenLogprob.Alternative("c", -2.0))), new TokenLogprob(" b", -1.0, List.of())), tokens);
    JsonArray content = TokenLogprob.chatLogprobs(tokens).getJsonArray("content");
    assertEquals(new JsonArray().add(32).add(98), content.getJsonObject(1).getJsonArray("bytes"));
    assertEquals(List.of(), TokenLogprob.fromCompletion(null));
  }

  @Test
  void aWholeAnswersBytesAreItsJson() {
    List<TokenLogprob> logprobs = List.of(new TokenLogprob("Hé", -0.25,
        List.of(new TokenLogprob.Alternative("Hé", -0.25), new TokenLogprob.Alternative("Hi", -1.5))));
    String call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"\u2713\"}}\n</tool_call>";
    List<List<ChatResponses.Choice>> answers = List.of(
        List.of(ChatResponses.choice(0, "plain", "stop", null, false, () -> "c")),
        List.of(ChatResponses.choice(0, "quote \" \\ \n \u2713 \ud83d\ude00", "length", logprobs,
                false, () -> "c"),
            ChatResponses.choice(1, "", null, null, false, () -> "c")),
        List.of(ChatResponses.choice(0, call, "stop", null, true, () -> "call_1"),
            ChatResponses.choice(1, "before " + call, "length", logprobs, true, () -> "call_2")),
        List.of());
    for (String model : new String[] {"m", null, "m\u00e9"}) {
      for (JsonObject usage : new JsonObject[] {ChatResponses.usage(7, 3), null,
          ChatResponses.usage(1, 2).put("extra", new JsonObject().put("ttft_s", 0.0123))}) {
        for (List<ChatResponses.Choice> choices : answers) {
          JsonObject json =
              ChatResponses.completion("chatcmpl-1", 1730000000L, model, choices, usage);
          JsonBytes w = JsonBytes.writer();
          assertTrue(ChatResponses.write(w, "chatcmpl-1", 1730000000L, model, choices,
              u -> u.value(usage)));
          assertEquals(FastJson.toBuffer(json), w.toBuffer(), json.encode());
        }
      }
    }
    // a lone surrogate: only the general encoder writes it, and the writer says so
    List<ChatResponses.Choice> lone = List.of(ChatResponses.choice(0, "x\ud83dy", "stop", null,
        false, () -> "c"));
    assertFalse(ChatResponses.write(JsonBytes.writer(), "id", 1, "m", lone, u -> true));
    assertFalse(ChatResponses.write(JsonBytes.writer(), "id", 1, "m", answers.get(0), u -> false),
        "a usage that only the general encoder writes");
  }
}
