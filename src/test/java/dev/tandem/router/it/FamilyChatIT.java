package dev.tandem.router.it;

import io.vertx.core.Vertx;
import dev.tandem.config.RouterConfig;
import dev.tandem.testing.TandemJar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.chat.ChatRequest;
import dev.tandem.chat.ChatSetup;
import dev.tandem.chat.ChatTemplate;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Qwen3-family and a Llama-3-family tiny model ({@code make-model --family}) serve chat end to end
 * in disagg mode (router + 1 prefill + 2 decode builtin engines): the router renders the family's
 * template (header ids, ChatML, thinking switched off) and the answer equals the decode engine's
 * completion of the rendered prompt, token for token, whole and streamed; a chat that sets no
 * temperature samples with the model's generation_config.json defaults.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FamilyChatIT {
  @TempDir
  static Path dir;

  record Answer(String text, String finish, List<String> tokens) {}

  /** {@code tandem make-model DIR/FAMILY --preset tiny --family FAMILY --seed 3}, from the jar. */
  static Path makeModel(String family) throws Exception {
    Path model = dir.resolve(family);
    Process p = TandemJar.process(TandemJar.command("256m", "make-model", model.toString(),
        "--preset", "tiny", "--family", family, "--seed", "3")).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("make-model failed: " + out);
    }
    return model;
  }

  @ParameterizedTest
  @ValueSource(strings = {"qwen3", "llama3"})
  void aFamilyModelServesChatInDisaggMode(String family) throws Exception {
    Path model = makeModel(family);
    ChatTemplate template = ChatSetup.load(null, model, null).requireTemplate();
    Vertx vertx = Vertx.vertx();
    TandemFleet fleet = TandemFleet.start(vertx, dir.resolve(family + "-fleet"),
        c -> c.set(RouterConfig.MODEL, model.toString())).toCompletionStage().toCompletableFuture()
        .get(150, TimeUnit.SECONDS);
    try {
      JsonArray messages = new JsonArray()
          .add(new JsonObject().put("role", "system").put("content", "You are a terse assistant."))
          .add(new JsonObject().put("role", "user").put("content", "Name a colour."))
          .add(new JsonObject().put("role", "assistant").put("content", "Blue."))
          .add(new JsonObject().put("role", "user").put("content", "Another one?"));
      JsonObject greedy = new JsonObject().put("messages", messages).put("max_completion_tokens", 12)
          .put("temperature", 0).put("logprobs", true).put("top_logprobs", 1);
      if (family.equals("qwen3")) {
        greedy.put("chat_template_kwargs", new JsonObject().put("enable_thinking", false));
      }
      String rendered = template.render(ChatRequest.parse(greedy));
      assertTrue(rendered.contains(family.equals("qwen3") ? "<|im_start|>assistant\n<think>\n\n</think>\n\n"
          : "<|start_header_id|>assistant<|end_header_id|>\n\n"), rendered);
      Answer reference = completion(fleet, rendered, new JsonObject().put("temperature", 0));
      assertTrue(reference.tokens().size() > 0);
      assertEquals(reference, whole(fleet, greedy), family + " disagg chat, whole");
      assertEquals(reference, streamed(fleet, greedy), family + " disagg chat, streamed");

      // no temperature, no top_p: the model's generation_config.json defaults (request > model > 1)
      JsonObject sampled = greedy.copy().put("seed", 7);
      sampled.remove("temperature");
      double topP = family.equals("qwen3") ? 0.95 : 0.9;
      Answer withDefaults = completion(fleet, rendered,
          new JsonObject().put("temperature", 0.6).put("top_p", topP).put("seed", 7));
      assertEquals(withDefaults, whole(fleet, sampled), family + " sampled with the model's defaults");
      assertNotEquals(withDefaults, completion(fleet, rendered,
          new JsonObject().put("temperature", 1.0).put("top_p", 1.0).put("seed", 7)));
      fleet.awaitRouterIdle(fleet.routerPort());
    } finally {
      // two steps: a callback chained on the undeploy would run on an event loop that
      // vertx.close() has already shut down, and the chained future would never complete
      try {
        fleet.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      } finally {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** The decode engine's own completion of the rendered prompt. */
  static Answer completion(TandemFleet fleet, String prompt, JsonObject sampling) {
    JsonObject body = sampling.copy().put("prompt", prompt).put("max_tokens", 12).put("logprobs", 1);
    HttpResponse<String> r = fleet.post(fleet.enginePort(1), "/v1/completions", body.encode());
    assertEquals(200, r.statusCode(), r.body());
    JsonObject c = new JsonObject(r.body()).getJsonArray("choices").getJsonObject(0);
    return new Answer(c.getString("text"), c.getString("finish_reason"),
        c.getJsonObject("logprobs").getJsonArray("tokens").getList());
  }

  static Answer whole(TandemFleet fleet, JsonObject chat) {
    HttpResponse<String> r = fleet.post(fleet.routerPort(), "/v1/chat/completions", chat.encode());
    assertEquals(200, r.statusCode(), r.body());
    JsonObject c = new JsonObject(r.body()).getJsonArray("choices").getJsonObject(0);
    return new Answer(c.getJsonObject("message").getString("content"), c.getString("finish_reason"),
        tokens(c.getJsonObject("logprobs"), new ArrayList<>()));
  }

  static Answer streamed(TandemFleet fleet, JsonObject chat) {
    HttpResponse<String> r = fleet.post(fleet.routerPort(), "/v1/chat/completions",
        chat.copy().put("stream", true).encode());
    assertEquals(200, r.statusCode(), r.body());
    StringBuilder text = new StringBuilder();
    List<String> tokens = new ArrayList<>();
    String finish = null;
    for (String block : r.body().split("\n\n")) {
      if (!block.equals("data: [DONE]")) {
        JsonObject c = new JsonObject(block.substring("data: ".length())).getJsonArray("choices").getJsonObject(0);
        text.append(c.getJsonObject("delta").getString("content", ""));
        tokens(c.getJsonObject("logprobs"), tokens);
        finish = c.getString("finish_reason", finish);
      }
    }
    return new Answer(text.toString(), finish, tokens);
  }

  static List<String> tokens(JsonObject logprobs, List<String> into) {
    if (logprobs != null) {
      for (Object o : logprobs.getJsonArray("content")) {
        into.add(((JsonObject) o).getString("token"));
      }
    }
    return into;
  }
}
