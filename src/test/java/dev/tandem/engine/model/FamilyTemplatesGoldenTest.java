package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.api.ApiError;
import dev.tandem.chat.ChatTemplate;
import dev.tandem.chat.SpecialTokens;
import dev.tandem.chat.TestData;
import dev.tandem.tokenizer.TokenizerSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chat templates make-model writes for llama3, qwen2 and qwen3, with the special tokens their
 * tokenizer_config.json sets, rendered for every conversation of the chat goldens and compared
 * character for character with Python's jinja2 under transformers' settings
 * (src/test/resources/families/generate_expected.py).
 */
class FamilyTemplatesGoldenTest {

  static ChatTemplate template(FamilyConventions family) {
    TokenizerSpec t = family.tokenizer();
    Map<String, String> tokens = new LinkedHashMap<>();
    if (t.bos() != null) {
      tokens.put("bos_token", t.bos());
    }
    tokens.put("eos_token", t.eos());
    if (t.pad() != null) {
      tokens.put("pad_token", t.pad());
    }
    return ChatTemplate.of(t.chatTemplate(), new SpecialTokens(tokens));
  }

  static JsonObject expected() throws IOException {
    try (InputStream in = FamilyTemplatesGoldenTest.class.getResourceAsStream("/families/expected.json")) {
      return new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  static Stream<Arguments> goldens() throws IOException {
    JsonObject expected = expected();
    JsonArray conversations = TestData.array("conversations.json");
    return Stream.of(FamilyConventions.LLAMA3, FamilyConventions.QWEN2, FamilyConventions.QWEN3)
        .flatMap(f -> conversations.stream().map(JsonObject.class::cast)
            .map(c -> Arguments.of(Named.of(f.id() + " / " + c.getString("name"), f), c,
                expected.getJsonObject(f.id()).getJsonObject(c.getString("name")))));
  }

  @ParameterizedTest
  @MethodSource("goldens")
  void rendersAsTransformersDoes(FamilyConventions family, JsonObject conversation, JsonObject expected) {
    ChatTemplate chat = template(family);
    JsonArray messages = conversation.getJsonArray("messages");
    JsonArray tools = conversation.getJsonArray("tools");
    boolean prompt = conversation.getBoolean("add_generation_prompt", false);
    JsonObject kwargs = conversation.getJsonObject("kwargs", new JsonObject());
    if (expected.containsKey("output")) {
      assertEquals(expected.getString("output"), chat.render(messages, tools, null, prompt, kwargs));
    } else {
      ApiError e = assertThrows(ApiError.class, () -> chat.render(messages, tools, null, prompt, kwargs));
      assertEquals(expected.getString("error"), e.getMessage());
    }
  }

  @Test
  void theGoldensCoverEveryFamilyTemplate() throws IOException {
    assertEquals(java.util.Set.of("llama3", "qwen2", "qwen3"), expected().fieldNames());
  }
}
