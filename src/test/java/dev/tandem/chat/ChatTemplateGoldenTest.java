package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ApiError;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Six chat templates written in the styles of the families in the wild (templates/*.jinja), each
 * rendered for every conversation of conversations.json and compared character for character with
 * what Python's jinja2 rendered under transformers' settings (expected/goldens.json). A template
 * that raises in Python must answer a 400 carrying the template's message here.
 */
class ChatTemplateGoldenTest {
  private static final Map<String, ChatTemplate> TEMPLATES = new HashMap<>();

  static {
    for (Object o : TestData.array("templates/manifest.json")) {
      JsonObject t = (JsonObject) o;
      Map<String, String> tokens = new HashMap<>();
      t.getJsonObject("special_tokens").forEach(e -> tokens.put(e.getKey(), (String) e.getValue()));
      TEMPLATES.put(t.getString("name"), ChatTemplate.of(TestData.text("templates/" + t.getString("file")),
          new SpecialTokens(tokens)));
    }
  }

  static Stream<Arguments> goldens() {
    JsonObject goldens = TestData.object("expected/goldens.json");
    JsonArray conversations = TestData.array("conversations.json");
    return goldens.fieldNames().stream().sorted().flatMap(template -> conversations.stream()
        .map(JsonObject.class::cast)
        .map(c -> Arguments.of(Named.of(template + " / " + c.getString("name"), template), c,
            goldens.getJsonObject(template).getJsonObject(c.getString("name")))));
  }

  @ParameterizedTest
  @MethodSource("goldens")
  void rendersAsTransformersDoes(String template, JsonObject conversation, JsonObject expected) {
    ChatTemplate chat = TEMPLATES.get(template);
    JsonArray messages = conversation.getJsonArray("messages");
    JsonArray tools = conversation.getJsonArray("tools");
    JsonArray documents = conversation.getJsonArray("documents");
    boolean prompt = conversation.getBoolean("add_generation_prompt", false);
    JsonObject kwargs = conversation.getJsonObject("kwargs", new JsonObject());
    if (expected.containsKey("output")) {
      assertEquals(expected.getString("output"), chat.render(messages, tools, documents, prompt, kwargs));
      return;
    }
    ApiError e = assertThrows(ApiError.class, () -> chat.render(messages, tools, documents, prompt, kwargs));
    assertEquals(400, e.status());
    assertEquals("chat_template_error", e.code());
    if (expected.getBoolean("raised")) {
      assertEquals(expected.getString("error"), e.getMessage());
    }
  }

  @Test
  void everyTemplateHasGoldensAndSomeRaise() {
    JsonObject goldens = TestData.object("expected/goldens.json");
    assertEquals(TEMPLATES.keySet(), goldens.fieldNames());
    assertTrue(TEMPLATES.size() >= 6);
    long raised = goldens.fieldNames().stream().map(goldens::getJsonObject)
        .flatMap(t -> t.fieldNames().stream().map(t::getJsonObject))
        .filter(r -> r.getBoolean("raised", false)).count();
    assertTrue(raised >= 4, "the goldens include templates that raise on a bad role order");
  }
}
