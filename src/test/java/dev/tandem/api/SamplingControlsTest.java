package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SamplingControlsTest {

  static SamplingControls parse(String json) {
    return CompletionRequest.parse(new JsonObject(json)).controls();
  }

  static ApiError refused(String json) {
    return assertThrows(ApiError.class, () -> parse(json));
  }

  @Test
  void theFieldsMlcServesAreAcceptedWithMlcsRanges() {
    SamplingControls c = parse("{\"prompt\":\"a\",\"frequency_penalty\":0.5,"
        + "\"presence_penalty\":-2,\"logit_bias\":{\"7\":100,\" 3\":-1.5},\"top_k\":40}");
    assertEquals(0.5, c.frequencyPenalty());
    assertEquals(-2, c.presencePenalty());
    assertEquals(Map.of(3, -1.5, 7, 100.0), c.logitBias());
    assertEquals(40, c.topK());
    assertTrue(c.any());
    assertFalse(parse("{\"prompt\":\"a\",\"top_k\":-1,\"logit_bias\":{}}").any());
    assertEquals(SamplingControls.NONE, parse("{\"prompt\":\"a\"}"));
  }

  @Test
  void outOfRangeValuesAre400sNamingTheField() {
    assertEquals("frequency_penalty", refused("{\"prompt\":\"a\",\"frequency_penalty\":2.5}").param());
    assertEquals("presence_penalty", refused("{\"prompt\":\"a\",\"presence_penalty\":-3}").param());
    assertEquals("logit_bias", refused("{\"prompt\":\"a\",\"logit_bias\":{\"1\":101}}").param());
    assertEquals("logit_bias", refused("{\"prompt\":\"a\",\"logit_bias\":{\"x\":1}}").param());
    assertEquals("logit_bias", refused("{\"prompt\":\"a\",\"logit_bias\":{\"-4\":1}}").param());
    assertEquals("logit_bias", refused("{\"prompt\":\"a\",\"logit_bias\":{\"4\":\"1\"}}").param());
    assertEquals("top_k", refused("{\"prompt\":\"a\",\"top_k\":-2}").param());
    assertEquals("response_format", refused("{\"prompt\":\"a\",\"response_format\":{\"type\":\"xml\"}}").param());
    assertEquals("response_format",
        refused("{\"prompt\":\"a\",\"response_format\":{\"type\":\"json_schema\"}}").param());
    ApiError vocab = assertThrows(ApiError.class,
        () -> parse("{\"prompt\":\"a\",\"logit_bias\":{\"1000\":1}}").checkVocabulary(1000));
    assertEquals("logit_bias", vocab.param());
  }

  @Test
  void responseFormatReachesMlcUnderItsAliasSchema() {
    // MLC's own router loses the schema: it sends the Python name json_schema (reference §6 item 10)
    String schema = "{\"type\":\"object\"}";
    for (String format : new String[] {
        "{\"type\":\"json_object\",\"schema\":\"{\\\"type\\\":\\\"object\\\"}\"}",
        "{\"type\":\"json_object\",\"json_schema\":\"{\\\"type\\\":\\\"object\\\"}\"}",
        "{\"type\":\"json_object\",\"schema\":{\"type\":\"object\"}}",
        "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"schema\":{\"type\":\"object\"}}}"}) {
      SamplingControls.ResponseFormat f = parse("{\"prompt\":\"a\",\"response_format\":" + format + "}")
          .responseFormat();
      assertEquals(new JsonObject().put("type", "json_object").put("schema", schema), f.toMlcJson(),
          format);
    }
    SamplingControls.ResponseFormat text = parse("{\"prompt\":\"a\",\"response_format\":{\"type\":\"text\"}}")
        .responseFormat();
    assertTrue(text.isText());
    assertNull(text.schema());
    assertNull(parse("{\"prompt\":\"a\",\"response_format\":{\"type\":\"json_object\"}}")
        .responseFormat().schema());
  }
}
