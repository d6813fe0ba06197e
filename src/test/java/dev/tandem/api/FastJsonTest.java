package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The request path's JSON codec reads what Vert.x's own reading reads, without falling back. */
class FastJsonTest {

  @Test
  void parsesAnObjectAsVertxDoes() {
    Buffer body = Buffer.buffer("{\"prompt\":[1,2,3],\"max_tokens\":16,\"temperature\":0.5,"
        + "\"seed\":12345678901,\"stream\":true,\"stream_options\":{\"include_usage\":true},"
        + "\"stop\":null,\"user\":\"é\"}");
    JsonObject parsed = FastJson.parseObject(body); // threw on every body before: a DecodeException per request
    assertEquals(new JsonObject(body), parsed);
    assertEquals(16, parsed.getInteger("max_tokens"));
    assertEquals(12345678901L, parsed.getLong("seed"));
    assertEquals(true, parsed.getJsonObject("stream_options").getBoolean("include_usage"));
    assertEquals(3, parsed.getJsonArray("prompt").size());
  }

  @Test
  void refusesWhatIsNotAnObject() {
    assertThrows(DecodeException.class, () -> FastJson.parseObject(Buffer.buffer("[1,2]")));
    assertThrows(DecodeException.class, () -> FastJson.parseObject(Buffer.buffer("{\"a\":")));
    assertThrows(DecodeException.class, () -> FastJson.parseObject(Buffer.buffer("{} {}")));
  }
}
