package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompletionRequestTest {

  private static ApiError refused(String body) {
    return assertThrows(ApiError.class, () -> CompletionRequest.parse(Buffer.buffer(body)));
  }

  @Test
  void parsesEveryField() {
    CompletionRequest r = CompletionRequest.parse(new JsonObject("""
        {"model":"m","prompt":[1,2,3],"max_tokens":16,"temperature":0,"top_p":0.5,"seed":7,
         "stop":["a","b"],"n":2,"logprobs":3,"echo":true,"stream":true,
         "stream_options":{"include_usage":true},"user":"id-1","suffix":"!",
         "debug_config":{"ignore_eos":true},"unknown_field":{"x":1}}"""));
    assertArrayEquals(new int[] {1, 2, 3}, r.prompt().tokenIds());
    assertEquals(16, r.maxTokens());
    assertEquals(0.0, r.temperature());
    assertEquals(0.5, r.topP());
    assertEquals(7L, r.seed());
    assertEquals(List.of("a", "b"), r.stop());
    assertEquals(2, r.n());
    assertEquals(3, r.logprobs());
    assertTrue(r.echo() && r.stream() && r.includeUsage() && r.ignoreEos());
    assertEquals("id-1", r.user());
  }

  @Test
  void defaultsFollowMlc() {
    CompletionRequest r = CompletionRequest.parse(new JsonObject("{\"prompt\":\"hi\",\"stop\":\"x\",\"max_tokens\":null}"));
    assertEquals("hi", r.prompt().text());
    assertEquals(null, r.maxTokens());
    assertEquals(1.0, r.temperature());
    assertEquals(1, r.n());
    assertEquals(List.of("x"), r.stop());
    assertEquals(null, r.logprobs());
  }

  @Test
  void badRequestsAre400sNamingTheField() {
    assertEquals(null, refused("{not json").param());
    assertEquals(400, refused("[1,2]").status());
    assertEquals("prompt", refused("{}").param());
    assertEquals("prompt", refused("{\"prompt\":\"\"}").param());
    assertEquals("prompt", refused("{\"prompt\":[]}").param());
    assertEquals("prompt", refused("{\"prompt\":[1,\"a\"]}").param());
    assertEquals("prompt", refused("{\"prompt\":[-1]}").param());
    assertEquals("prompt", refused("{\"prompt\":5}").param());
    assertEquals("max_tokens", refused("{\"prompt\":\"a\",\"max_tokens\":-1}").param());
    assertEquals("max_tokens", refused("{\"prompt\":\"a\",\"max_tokens\":\"10\"}").param());
    assertEquals("max_tokens", refused("{\"prompt\":\"a\",\"max_tokens\":1.5}").param());
    assertEquals("temperature", refused("{\"prompt\":\"a\",\"temperature\":-0.1}").param());
    assertEquals("top_p", refused("{\"prompt\":\"a\",\"top_p\":0}").param());
    assertEquals("top_p", refused("{\"prompt\":\"a\",\"top_p\":1.01}").param());
    assertEquals("n", refused("{\"prompt\":\"a\",\"n\":0}").param());
    assertEquals("logprobs", refused("{\"prompt\":\"a\",\"logprobs\":6}").param());
    assertEquals("logprobs", refused("{\"prompt\":\"a\",\"logprobs\":-1}").param());
    assertEquals("stream", refused("{\"prompt\":\"a\",\"stream\":\"yes\"}").param());
    assertEquals("stop", refused("{\"prompt\":\"a\",\"stop\":[1]}").param());
    assertEquals("best_of", refused("{\"prompt\":\"a\",\"best_of\":2}").param());
    assertEquals("user", refused("{\"prompt\":\"a\",\"user\":\"\"}").param());
    ApiError e = refused("{\"prompt\":\"a\",\"temperature\":\"hot\"}");
    JsonObject body = e.toJson().getJsonObject("error");
    assertEquals("invalid_request_error", body.getString("type"));
    assertTrue(body.containsKey("code") && body.containsKey("param") && body.containsKey("message"));
  }

  @Test
  void integralFloatsAreIntegers() {
    assertEquals(16, CompletionRequest.parse(new JsonObject("{\"prompt\":\"a\",\"max_tokens\":16.0}")).maxTokens());
  }
}
