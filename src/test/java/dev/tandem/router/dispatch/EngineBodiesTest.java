package dev.tandem.router.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonInts;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EngineBodiesTest {

  private static Attempt attempt(JsonObject engineFields) {
    CompletionJob job = new CompletionJob("cmpl-1", 1L, "m", new JsonInts(new int[] {3, 4, 5}),
        null, null, 1, 16, true, true, null, 0.0, null, engineFields, new Cancellation());
    return new Attempt(job, AttemptSpec.initial(job), "cmpl-1-2", Set.of(), null,
        new AttemptResult());
  }

  /** The bytes sent are exactly the encoding of the body's JSON, whatever the client passed on. */
  @Test
  void bytesAreTheBodysJson() {
    JsonObject[] passed = {new JsonObject(),
        new JsonObject().put("temperature", 0.7).put("stop", new JsonArray().add("\n").add("\u00e9"))
            .put("seed", 42L).put("debug_config", new JsonObject().put("ignore_eos", true)),
        new JsonObject().put("logit_bias", new JsonObject().put("12", -1.5)).putNull("top_p")
            .put("end", 99).put("user_note", "quote \" \\ \u2713 \ud83d\ude00"),
        new JsonObject().put("odd", "x\ud83dy"), // a lone surrogate: the codec writes it
        new JsonObject().put("nan", Double.NaN)};
    for (JsonObject fields : passed) {
      for (boolean ids : new boolean[] {false, true}) {
        EngineBody gen = EngineBodies.generation(attempt(fields), ids);
        for (EngineBody body : new EngineBody[] {gen, EngineBodies.prepRecv(gen, 2),
            EngineBodies.remoteSend(gen, 1, 2, "addr", 4), EngineBodies.startGenerate(gen, 2),
            EngineBodies.prepRecv(gen, 2).with("end", 3),
            EngineBodies.prepRecv(gen, 2).with("n", 2),
            gen.with("user_note", "passed on, then the router's")}) {
          Buffer json;
          try {
            json = FastJson.toBuffer(body.toJson());
          } catch (RuntimeException notJson) {
            continue; // NaN: refused by the codec either way
          }
          assertEquals(json, body.toBuffer(), fields.encode());
        }
      }
    }
  }

  /** A prompt read from the client with its bytes goes to every call as those bytes. */
  @Test
  void aPromptReadWithItsBytesIsWrittenAsThem() {
    JsonObject client = FastJson.parseObject(Buffer.buffer("{\"prompt\":[3,4,5]}"));
    JsonInts read = (JsonInts) client.getMap().get("prompt");
    CompletionJob job = new CompletionJob("cmpl-1", 1L, "m", read, null, null, 1, 16, true, true,
        null, 0.0, null, new JsonObject().put("seed", 1), new Cancellation());
    Attempt a = new Attempt(job, AttemptSpec.initial(job), "cmpl-1-2", Set.of(), null,
        new AttemptResult());
    EngineBody gen = EngineBodies.generation(a, false);
    assertTrue(gen.get("prompt") == read, "the job's prompt itself");
    EngineBody copy = EngineBodies.generation(attempt(new JsonObject().put("seed", 1)), false);
    assertEquals(copy.toBuffer(), gen.toBuffer());
    assertEquals(EngineBodies.remoteSend(copy, 0, 3, "a", 1).toBuffer(),
        EngineBodies.remoteSend(gen, 0, 3, "a", 1).toBuffer());
  }

  /** The router's fields win: a client field of the same name is not passed on, nor written twice. */
  @Test
  void routerFieldsReplaceTheClientsOfTheSameName() {
    JsonObject fields = new JsonObject().put("end", 99).put("temperature", 0.5)
        .put("debug_config", new JsonObject().put("ignore_eos", true).put("special_request", "x"));
    EngineBody gen = EngineBodies.generation(attempt(fields), true);
    JsonObject json = new JsonObject(gen.toBuffer());
    assertEquals(99, json.getInteger("end"), "not the router's on a plain generation: passed on");
    assertEquals(new JsonArray().add(3).add(4).add(5), json.getJsonArray("prompt"));
    assertEquals("cmpl-1-2", json.getString("user"));
    assertEquals(true, json.getBoolean("stream"));
    assertEquals(false, json.getBoolean("echo"));
    assertEquals(true, json.getBoolean("return_token_ids"));
    assertEquals(new JsonObject().put("include_usage", true), json.getJsonObject("stream_options"));
    assertEquals(EngineBodies.defaultDebugConfig().put("ignore_eos", true)
        .put("special_request", "x"), json.getJsonObject("debug_config"), "the client's merged in");
    String prep = EngineBodies.prepRecv(gen, 2).toBuffer().toString();
    assertEquals(2, new JsonObject(prep).getInteger("end"));
    assertEquals(prep.indexOf("\"end\""), prep.lastIndexOf("\"end\""), "one end: " + prep);
    EngineBody released = EngineBodies.startGenerate(gen, 2).with("max_tokens", 1);
    assertEquals(1, new JsonObject(released.toBuffer()).getInteger("max_tokens"));
    assertEquals(16, new JsonObject(gen.toBuffer()).getInteger("max_tokens"), "gen unchanged");
    assertFalse(new JsonObject(EngineBodies.generation(attempt(fields), false).toBuffer())
        .containsKey("return_token_ids"));
    assertTrue(fields.getJsonObject("debug_config").size() == 2, "the job's fields unchanged");
  }
}
