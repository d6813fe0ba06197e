package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.FastJson;
import dev.tandem.chat.ChatAnswer;
import dev.tandem.router.dispatch.AnswerEnd;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A chat's whole answer written as bytes is the JSON the chat answer builds from its completion. */
class ChatWholeAnswerTest {

  /** A completion's end known only by its JSON (AnswerEnd's own reading of choices and usage). */
  private static AnswerEnd completion(JsonObject json) {
    return new JsonEnd(json);
  }

  private static JsonObject choice(int index, String text, String finish, JsonObject logprobs) {
    return new JsonObject().put("index", index).put("text", text).put("logprobs", logprobs)
        .put("finish_reason", finish);
  }

  @Test
  void theBytesAreTheChatCompletionsJsonAndTheCountsTheCompletions() {
    JsonObject logprobs = new JsonObject().putNull("text_offset")
        .put("token_logprobs", new JsonArray().add(-0.25))
        .put("tokens", new JsonArray().add(" a\n"))
        .put("top_logprobs", new JsonArray().add(new JsonObject().put(" a\n", -0.25)));
    String call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
    JsonObject usage = new JsonObject().put("prompt_tokens", 3).put("completion_tokens", 5)
        .put("total_tokens", 8).put("extra", new JsonObject().put("ttft_s", 0.5));
    JsonArray[] answers = {
        new JsonArray().add(choice(0, " plain", "stop", null)),
        new JsonArray().add(choice(0, "quote \" \\ \n \u2713 \ud83d\ude00", "length", logprobs))
            .add(choice(1, call, "stop", null)),
        new JsonArray().add(choice(0, "x\ud83dy", "stop", null)), // lone surrogate: general path
    };
    for (boolean tools : new boolean[] {false, true}) {
      for (JsonArray choices : answers) {
        JsonObject json = new JsonObject().put("id", "cmpl-1").put("object", "text_completion")
            .put("created", 1).put("model", "m").put("choices", choices).put("usage", usage);
        AtomicInteger calls = new AtomicInteger();
        ChatAnswer before = new ChatAnswer("chatcmpl-1", 1_796_000_000L, "m", choices.size(),
            tools, () -> "call_" + calls.incrementAndGet());
        Buffer expected = FastJson.toBuffer(before.whole(json)); // the path before: JSON objects
        calls.set(0);
        ChatAnswer answer = new ChatAnswer("chatcmpl-1", 1_796_000_000L, "m", choices.size(),
            tools, () -> "call_" + calls.incrementAndGet());
        ChatWholeAnswer whole = new ChatWholeAnswer(answer, completion(json));
        assertEquals(expected, whole.toJsonBuffer(), choices.encode() + " tools " + tools);
        assertEquals(new JsonObject(expected), whole.toJson());
        assertEquals(5, whole.completionTokens());
        assertEquals(8, whole.totalTokens());
        assertEquals(usage, whole.usage());
      }
    }
  }
}
