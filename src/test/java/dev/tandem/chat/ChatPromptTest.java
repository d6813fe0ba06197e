package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ApiError;
import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TokenizerFilesWriter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chat's prompt ids, on the real tokenizer library: the ids of the rendered template, tokenized
 * on the asking event loop when the conversation is short, else on a worker.
 */
class ChatPromptTest {
  @TempDir
  static Path dir;
  static Vertx vertx;
  static DjlTokenizer tokenizer;
  static ChatTemplate chatMl;

  @BeforeAll
  static void load() throws Exception {
    TokenizerFilesWriter.write(dir, 1024, 4096, 3);
    tokenizer = DjlTokenizer.load(dir);
    chatMl = ChatTemplates.fromModelDir(dir).orElseThrow();
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void close() {
    tokenizer.close();
    vertx.close().await();
  }

  /** The ids and the thread that tokenized them, asked from an event loop. */
  private record Tokenized(int[] ids, String thread, String loop, Throwable failure) {}

  private static Tokenized ids(ChatRequest request, ChatTemplate template) throws Exception {
    CompletableFuture<Tokenized> done = new CompletableFuture<>();
    vertx.getOrCreateContext().runOnContext(v -> {
      String loop = Thread.currentThread().getName();
      Future<Tokenized> f = ChatPrompt.ids(vertx, request, template, tokenizer,
          ids -> new Tokenized(ids, Thread.currentThread().getName(), loop, null));
      f.onComplete(r -> done.complete(r.succeeded() ? r.result()
          : new Tokenized(null, null, loop, r.cause())));
    });
    return done.get(10, TimeUnit.SECONDS);
  }

  private static ChatRequest chat(String userText, JsonObject more) {
    JsonObject body = new JsonObject().put("messages", new JsonArray()
        .add(new JsonObject().put("role", "system").put("content", "Be brief."))
        .add(new JsonObject().put("role", "user").put("content", userText)));
    return ChatRequest.parse(more == null ? body : body.mergeIn(more));
  }

  private static void assertTheTemplatesIds(Tokenized t, ChatRequest request,
      ChatTemplate template) {
    assertArrayEquals(tokenizer.encode(template.render(request)), t.ids());
  }

  @Test
  void aShortChatIsRenderedAndTokenizedOnTheLoop() throws Exception {
    ChatRequest hi = chat("Hello there, what is the capital of France?", null);
    Tokenized t = ids(hi, chatMl);
    assertEquals(t.loop(), t.thread());
    assertTheTemplatesIds(t, hi, chatMl);
  }

  @Test
  void aLongChatGoesToAWorker() throws Exception {
    ChatRequest longer = chat("word ".repeat(300), null);
    assertTrue(longer.textChars() > 1024, "the user's text alone is over the line");
    Tokenized t = ids(longer, chatMl);
    assertNotEquals(t.loop(), t.thread());
    assertTrue(t.thread().contains("worker"), t.thread());
    assertTheTemplatesIds(t, longer, chatMl);
  }

  @Test
  void manyShortMessagesAreALongChat() throws Exception {
    JsonArray messages = new JsonArray();
    for (int i = 0; i < 40; i++) {
      messages.add(new JsonObject().put("role", i % 2 == 0 ? "user" : "assistant")
          .put("content", "k"));
    }
    ChatRequest many = ChatRequest.parse(new JsonObject().put("messages", messages));
    Tokenized t = ids(many, chatMl);
    assertTrue(t.thread().contains("worker"), t.thread());
    assertTheTemplatesIds(t, many, chatMl);
  }

  @Test
  void aShortChatThatTheTemplateMakesLongIsTokenizedOnAWorker() throws Exception {
    Path file = Files.writeString(dir.resolve("preamble.jinja"), "You are a helpful assistant. "
        .repeat(40) + "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}"
        + "<|im_end|>\n{% endfor %}<|im_start|>assistant\n");
    ChatTemplate preamble = ChatTemplates.fromFile(file, dir);
    ChatRequest hi = chat("hi", null);
    assertTrue(preamble.render(hi).length() > 1024);
    Tokenized t = ids(hi, preamble);
    assertTrue(t.thread().contains("worker"), t.thread());
    assertTheTemplatesIds(t, hi, preamble);
  }

  @Test
  void aChatWithToolsGoesToAWorkerHoweverShort() throws Exception {
    JsonObject f = new JsonObject().put("type", "function")
        .put("function", new JsonObject().put("name", "f"));
    ChatRequest tools = chat("hi", new JsonObject().put("tools", new JsonArray().add(f)));
    Tokenized t = ids(tools, chatMl);
    assertTrue(t.thread().contains("worker"), t.thread());
    assertTheTemplatesIds(t, tools, chatMl);
  }

  @Test
  void aTemplatesRefusalFailsTheFutureOnTheLoopAsOnAWorker() throws Exception {
    Path file = Files.writeString(dir.resolve("refuses.jinja"),
        "{% if messages[0]['role'] == 'system' %}{{ raise_exception('No system messages') }}"
        + "{% endif %}");
    ChatTemplate refuses = ChatTemplates.fromFile(file, dir);
    for (String text : new String[] {"hi", "word ".repeat(300)}) {
      Tokenized t = ids(chat(text, null), refuses);
      assertTrue(t.failure() instanceof ApiError, String.valueOf(t.failure()));
      assertEquals("No system messages", t.failure().getMessage());
      assertEquals(400, ((ApiError) t.failure()).status());
    }
  }
}
