package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ApiError;
import dev.tandem.tokenizer.TokenizerFilesWriter;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatTemplatesTest {
  private static final JsonArray HI = new JsonArray().add(new JsonObject().put("role", "user").put("content", "hi"));
  private static final JsonArray TOOLS = new JsonArray().add(new JsonObject().put("type", "function")
      .put("function", new JsonObject().put("name", "f")));

  @TempDir
  Path dir;

  private void config(JsonObject config) throws IOException {
    Files.writeString(dir.resolve("tokenizer_config.json"), config.encodePrettily());
  }

  private static String render(ChatTemplate t, JsonArray tools) {
    return t.render(HI, tools, null, true, null);
  }

  @Test
  void readsAStringTemplateAndSpecialTokensWrittenEitherWay() throws IOException {
    config(new JsonObject().put("chat_template", "{{ bos_token }}|{{ eos_token }}|{{ messages[0].content }}")
        .put("bos_token", new JsonObject().put("__type", "AddedToken").put("content", "<s>"))
        .put("eos_token", "</s>").putNull("pad_token"));
    ChatTemplate t = ChatTemplates.fromModelDir(dir).orElseThrow();
    assertEquals("<s>|</s>|hi", render(t, null));
    assertEquals(Map.of("bos_token", "<s>", "eos_token", "</s>"), t.specialTokens().tokens());
  }

  @Test
  void picksToolUseWhenToolsAreGivenAsTransformersDoes() throws IOException {
    config(new JsonObject().put("chat_template", new JsonArray()
        .add(new JsonObject().put("name", "default").put("template", "plain"))
        .add(new JsonObject().put("name", "tool_use").put("template", "tools:{{ tools|length }}"))));
    ChatTemplate t = ChatTemplates.fromModelDir(dir).orElseThrow();
    assertEquals("plain", render(t, null));
    assertEquals("tools:1", render(t, TOOLS));
    assertEquals("plain", t.source(false));
  }

  @Test
  void aJinjaFileBesideTheConfigWinsAndAdditionalTemplatesAreNamed() throws IOException {
    config(new JsonObject().put("chat_template", "from config").put("eos_token", "E"));
    Files.writeString(dir.resolve("chat_template.jinja"), "from file {{ eos_token }}\n");
    Files.createDirectories(dir.resolve("additional_chat_templates"));
    Files.writeString(dir.resolve("additional_chat_templates/tool_use.jinja"), "tool file");
    ChatTemplate t = ChatTemplates.fromModelDir(dir).orElseThrow();
    assertEquals("from file E", render(t, null), "one trailing newline is dropped, as Jinja2 does");
    assertEquals("tool file", render(t, TOOLS));
  }

  @Test
  void noTemplateIsEmptyAndABrokenOneSaysWhich() throws IOException {
    config(new JsonObject().put("eos_token", "E"));
    assertTrue(ChatTemplates.fromModelDir(dir).isEmpty());
    config(new JsonObject().put("chat_template", "{% for m in messages %}"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChatTemplates.fromModelDir(dir));
    assertTrue(e.getMessage().contains("'default'"), e.getMessage());
    config(new JsonObject().put("chat_template", 5));
    assertThrows(IllegalArgumentException.class, () -> ChatTemplates.fromModelDir(dir));
  }

  @Test
  void chatTemplateFileOverridesTheModelsAndKeepsItsTokens() throws IOException {
    config(new JsonObject().put("chat_template", "model's").put("bos_token", "<s>"));
    Path file = dir.resolve("override.jinja");
    Files.writeString(file, "override {{ bos_token }}");
    assertEquals("override <s>", render(ChatTemplates.fromFile(file, dir), null));
    Path json = dir.resolve("override.json");
    Files.writeString(json, new JsonObject().put("chat_template", "json {{ add_generation_prompt }}").encode());
    assertEquals("json True", render(ChatTemplates.fromFile(json, null), null));
  }

  @Test
  void aTemplateThatRaisesIsA400CarryingItsMessage() {
    ChatTemplate t = ChatTemplate.of("{{ raise_exception('no system role, please') }}", SpecialTokens.none());
    ApiError e = assertThrows(ApiError.class, () -> render(t, null));
    assertEquals(400, e.status());
    assertEquals("no system role, please", e.getMessage());
    ApiError failed = assertThrows(ApiError.class,
        () -> render(ChatTemplate.of("{{ messages[0].content + 1 }}{{ messages.nope() }}", SpecialTokens.none()), null));
    assertEquals(400, failed.status());
    assertEquals("chat_template_error", failed.code());
  }

  @Test
  void makeModelsTemplateRendersAChatRequest() {
    ChatTemplate t = ChatTemplate.of(TokenizerFilesWriter.CHAT_TEMPLATE, SpecialTokens.none());
    ChatRequest r = ChatRequest.parse(new JsonObject(
        "{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":\"u\"}]}"));
    assertEquals("<|im_start|>system\ns<|im_end|>\n<|im_start|>user\nu<|im_end|>\n<|im_start|>assistant\n",
        t.render(r));
  }

  @Test
  void rendersConcurrentlyFromOneParse() throws Exception {
    ChatTemplate t = ChatTemplate.of(TestData.text("templates/chatml_tools.jinja"), SpecialTokens.none());
    JsonObject conversation = TestData.array("conversations.json").getJsonObject(5);
    String expected = TestData.object("expected/goldens.json").getJsonObject("chatml_tools")
        .getJsonObject(conversation.getString("name")).getString("output");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        results.add(pool.submit(() -> t.render(conversation.getJsonArray("messages"),
            conversation.getJsonArray("tools"), null, true, null)));
      }
      for (Future<String> f : results) {
        assertEquals(expected, f.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
