package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class EngineErrorBodyTest {

  private static EngineErrorBody parse(String s) {
    return EngineErrorBody.parse(Buffer.buffer(s));
  }

  @Test
  void openAiShape() {
    EngineErrorBody e = parse("{\"error\":{\"message\":\"prompt too long\",\"type\":\"invalid_request_error\","
        + "\"param\":\"prompt\",\"code\":\"context_length_exceeded\"}}");
    assertEquals("prompt too long", e.message());
    assertEquals("invalid_request_error", e.type());
    assertEquals("prompt", e.param());
    assertEquals("context_length_exceeded", e.code());
  }

  @Test
  void mlcPlainAndDoubleEncoded() {
    assertEquals("Invalid request prompt", parse("{\"object\":\"error\",\"message\":\"Invalid request prompt\",\"code\":400}").message());
    assertEquals("Invalid request prompt",
        parse("\"{\\\"object\\\":\\\"error\\\",\\\"message\\\":\\\"Invalid request prompt\\\",\\\"code\\\":400}\"").message());
  }

  @Test
  void fastApiDetailAndPlainText() {
    assertEquals("Invalid API Key", parse("{\"detail\":\"Invalid API Key\"}").message());
    assertEquals("[\"body\",\"logprobs\"]: Input should be less than or equal to 5",
        parse("{\"detail\":[{\"loc\":[\"body\",\"logprobs\"],\"msg\":\"Input should be less than or equal to 5\"}]}").message());
    assertEquals("Internal Server Error", parse("Internal Server Error").message());
    assertEquals("(empty body)", parse("").message());
  }
}
