package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EngineChunkTest {

  private static EngineChunk parse(String json) {
    // parse from the middle of a larger array, as the SSE parser hands it over
    byte[] bytes = ("xx" + json + "yy").getBytes(StandardCharsets.UTF_8);
    return EngineChunk.parse(bytes, 2, bytes.length - 4);
  }

  @Test
  void readsWhatTheRouterUsesFromAnMlcChunk() {
    JsonObject logprobs = new JsonObject().putNull("text_offset")
        .put("token_logprobs", new JsonArray().add(-1.5)).put("tokens", new JsonArray().add("h\u00e9"))
        .put("top_logprobs", new JsonArray().add(new JsonObject().put("h\u00e9", -1.5)));
    JsonObject chunk = new JsonObject().put("id", "cmpl-9")
        .put("choices", new JsonArray()
            .add(new JsonObject().putNull("finish_reason").put("index", 1).put("logprobs", logprobs)
                .put("text", "h\u00e9 \"x\"\n").put("token_ids", new JsonArray().add(5).add(70000)))
            .add(new JsonObject().put("finish_reason", "preempt").put("index", 0).putNull("logprobs")
                .put("text", "")))
        .put("created", 1).put("model", "m").put("object", "text_completion")
        .put("system_fingerprint", "").put("nested", new JsonObject().put("a", new JsonArray().add(1)))
        .putNull("usage");
    EngineChunk c = parse(chunk.encode());
    assertEquals(2, c.choices().size());
    EngineChunk.Choice a = c.choices().get(0);
    assertEquals(1, a.index());
    assertEquals("h\u00e9 \"x\"\n", a.text());
    assertNull(a.finishReason());
    assertArrayEquals(new int[] {5, 70000}, a.tokenIds());
    assertEquals(logprobs, a.logprobs());
    EngineChunk.Choice b = c.choices().get(1);
    assertEquals("preempt", b.finishReason());
    assertNull(b.tokenIds());
    assertNull(b.logprobs());
    assertNull(c.completionTokens());
    assertNull(c.usageExtra());
    assertNull(c.error());
  }

  @Test
  void usageRecordWithExtra() {
    JsonObject extra = new JsonObject().put("ttft_s", 0.02).put("end_to_end_latency_s", 0.1)
        .put("output_token_ids", new JsonArray().add(new JsonArray().add(1).add(2)));
    EngineChunk c = parse(new JsonObject().put("choices", new JsonArray())
        .put("usage", new JsonObject().put("prompt_tokens", 3).put("completion_tokens", 2)
            .put("total_tokens", 5).put("extra", extra)).encode());
    assertTrue(c.choices().isEmpty());
    assertEquals(2, c.completionTokens());
    assertEquals(extra, c.usageExtra().json());
  }

  @Test
  void errorEventKeepsTheWholeBody() {
    String body = "{\"error\":{\"message\":\"boom\",\"type\":\"internal_error\"}}";
    EngineChunk c = parse(body);
    assertEquals(body, c.error().toString());
    assertNull(parse("{\"error\":null,\"choices\":[]}").error());
  }

  @Test
  void malformedChunksAreRefused() {
    for (String bad : new String[] {"[1]", "{\"choices\":{}}", "{\"choices\":[1]}",
        "{\"choices\":[{\"index\":\"0\"}]}", "{\"choices\":[{\"text\":5}]}",
        "{\"choices\":[{\"token_ids\":[1.5]}]}", "{\"usage\":3}", "{\"a\":1} {\"b\":2}", "{\"a\":",
        "not json"}) {
      assertThrows(IllegalArgumentException.class, () -> parse(bad), bad);
    }
  }
}
