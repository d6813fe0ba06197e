package dev.tandem.router.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;
import dev.tandem.api.JsonInts;
import dev.tandem.router.policy.CacheAwarePolicy;
import dev.tandem.router.policy.PdSplitPolicy;
import dev.tandem.router.upstream.Cancellation;
import dev.tandem.router.upstream.EngineChunk;
import dev.tandem.router.upstream.UsageExtra;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ClientChunksTest {

  private static ClientChunks chunks(String id, String model) {
    return new ClientChunks(new CompletionJob(id, 1_796_000_000L, model,
        new JsonInts(new int[] {1}), null, null,
        2, 8, true, false, null, 0.0, null, new JsonObject(), new Cancellation()));
  }

  /** The SSE bytes written directly must be exactly the SSE encoding of the JSON shape. */
  @Test
  void sseBytesAreTheJsonChunkWhateverTheText() {
    ClientChunks c = chunks("cmpl-\"q\"\\1", "models/llama \u00e9");
    JsonObject logprobs = new JsonObject().putNull("text_offset")
        .put("token_logprobs", new JsonArray().add(-0.25)).put("tokens", new JsonArray().add(" a\n"))
        .put("top_logprobs", new JsonArray().add(new JsonObject().put(" a\n", -0.25)));
    String[] texts = {"", " plain", "quote \" backslash \\ slash /", "new\nline\ttab\r\u0001\u001f",
        "unicode h\u00e9llo \u2713 \ud83d\ude00", "\u2028\u2029"};
    for (String text : texts) {
      for (String finish : new String[] {null, "stop", "length"}) {
        for (JsonObject lp : new JsonObject[] {null, logprobs}) {
          ClientChunk chunk = c.delta(text.length() % 2 == 0 ? 1 : 12, text, lp, finish);
          String sse = chunk.toSse().toString();
          assertTrue(sse.startsWith("data: ") && sse.endsWith("\n\n"), sse);
          String json = sse.substring("data: ".length(), sse.length() - 2);
          assertEquals(chunk.toJson(), new JsonObject(json), json);
          assertEquals(chunk.toJson().encode(), json, "same keys in the same order");
        }
      }
    }
  }

  /** The per-request prefix is written as bytes: the same as the JSON for any id and model. */
  @Test
  void sseBytesAreTheJsonChunkWhateverTheIdAndModel() {
    String[][] cases = {{"cmpl-2", null}, {"cmpl-3", "m\u0001\t\u2028 \"/\\"}, {"", ""},
        {"cmpl-\u00e9\ud83d\ude00", "\u2713"}, {"cmpl-6", "m\u007f~ "}, {"cmpl-7", "m\u007f~ "},
        {"cmpl-8", null}, {"cmpl-9", "m\u007f~ "}, {"cmpl-10", "m"}}; // the model cache switches
    for (String[] idModel : cases) {
      ClientChunk chunk = chunks(idModel[0], idModel[1]).delta(0, "t", null, "stop");
      String sse = chunk.toSse().toString();
      assertEquals("data: " + chunk.toJson().encode() + "\n\n", sse);
    }
    // a lone surrogate in the model name: the general path, as the JSON's UTF-8 bytes
    ClientChunk odd = chunks("cmpl-5", "m\ud83d").delta(0, "t", null, null);
    assertEquals(Buffer.buffer("data: " + odd.toJson().encode() + "\n\n"), odd.toSse());
  }

  @Test
  void aLoneSurrogateFromAnEngineDoesNotBreakTheStream() {
    ClientChunk chunk = chunks("cmpl-1", "m").delta(0, "x\ud83dy", null, null);
    // what the general path writes: the line's UTF-8 bytes, the lone surrogate as '?'
    Buffer expected = Buffer.buffer("data: " + chunk.toJson().encode() + "\n\n");
    assertEquals(expected, chunk.toSse());
    assertTrue(chunk.toSse().toString().contains("\"text\":\"x?y\""), chunk.toSse().toString());
    ClientChunk finish = chunks("cmpl-1", "m").delta(0, "x", null, "st\ud800");
    assertEquals(Buffer.buffer("data: " + finish.toJson().encode() + "\n\n"), finish.toSse());
  }

  @Test
  void jsonShapeIsTheOpenAiChunk() {
    JsonObject j = chunks("cmpl-1", "m").delta(0, "hi", null, "stop").toJson();
    assertEquals("cmpl-1", j.getString("id"));
    assertEquals("text_completion", j.getString("object"));
    assertEquals(1_796_000_000L, j.getLong("created"));
    assertEquals("m", j.getString("model"));
    assertEquals(new JsonObject().put("index", 0).put("text", "hi").putNull("logprobs")
        .put("finish_reason", "stop"), j.getJsonArray("choices").getJsonObject(0));
    assertTrue(j.containsKey("usage") && j.getValue("usage") == null);
  }

  /** A stream's last chunk: the deltas' envelope, no choices, the usage; same key order. */
  @Test
  void usageChunkIsTheDeltasEnvelopeWithTheUsage() {
    ClientChunks c = chunks("cmpl-7", "m");
    JsonObject usage = ClientChunks.usage(3, 2);
    JsonObject expected = c.delta(0, "x", null, null).toJson().put("choices", new JsonArray())
        .put("usage", usage);
    assertEquals(expected.encode(), c.usageChunk(usage).encode());
  }

  private static ClientChunks streamChunks(String id, String model) {
    return new ClientChunks(new CompletionJob(id, 1_796_000_000L, model,
        new JsonInts(new int[] {1, 2, 3}), null,
        null, 1, 8, true, true, null, 0.0, null, new JsonObject(), new Cancellation()));
  }

  private static Routing routing(boolean disagg) {
    Routing r = new Routing("cache-aware", new Routing.Pick(disagg ? "decode" : "whole", 3,
        CacheAwarePolicy.Reason.PREFIX, 12, 5));
    if (disagg) {
      r.split("adaptive", new PdSplitPolicy.Decision(PdSplitPolicy.Kind.PARTIAL, 0.375,
          "P's queue 2, D's 1: \"partial\" \u00e9"));
      r.prefill(new Routing.Pick("prefill", 0, CacheAwarePolicy.Reason.LEAST_LOADED, 0, 0));
    }
    return r;
  }

  /**
   * A stream's usage chunk is written straight as bytes: exactly the SSE encoding of its JSON,
   * whatever the engine's usage record holds and whatever the routing was.
   */
  @Test
  void usageChunkBytesAreItsJson() {
    JsonObject[] extras = {null, new JsonObject(),
        new JsonObject().put("output_token_ids", new JsonArray().add(new JsonArray().add(5))),
        new JsonObject().put("ttft_s", 0.0123).put("end_to_end_latency_s", 1.5e-3)
            .put("prefix_matched_length", 7),
        new JsonObject().put("routing", "the engine's").put("n", 1L)
            .put("output_token_ids", new JsonArray()),
        new JsonObject().put("nested", new JsonObject().put("a", new JsonArray().add(true).addNull()))
            .put("text", "quote \" \u2713 \ud83d\ude00 \n"),
        new JsonObject().put("odd", "x\ud83dy"), // a lone surrogate: the general path
        new JsonObject().put("nan", Double.NaN)};
    for (JsonObject extra : extras) {
      for (Routing routing : new Routing[] {null, routing(false), routing(true)}) {
        for (String[] idModel : new String[][] {{"cmpl-1", "m"}, {"cmpl-\u00e9", null}}) {
          AnswerEnd end = streamChunks(idModel[0], idModel[1])
              .end(null, 3, 16, extra == null ? null : UsageExtra.of(extra.copy()), routing);
          Buffer expected;
          try { // the line's UTF-8 bytes (a lone surrogate as '?', as the general path writes it)
            expected = Buffer.buffer("data: " + end.toJson().encode() + "\n\n");
          } catch (RuntimeException notJson) {
            continue; // NaN: Jackson refuses it either way; nothing to compare
          }
          assertEquals(expected, end.toSse(), extra + " / " + (routing == null ? null : routing.toJson()));
          assertEquals(19, end.totalTokens());
          assertEquals(16, end.completionTokens());
        }
      }
    }
  }

  /**
   * A flat record the engine's usage chunk carried is spliced as its bytes: where the engine wrote
   * it as Jackson does, the usage chunk is byte for byte its JSON's SSE; where it spelled a number
   * its own way, that spelling goes through, white space between tokens does not, and the values
   * are the JSON's.
   */
  @Test
  void aFlatEngineRecordIsSplicedAsItCame() {
    String[] records = {"{}",
        "{\"ttft_s\":0.0123,\"end_to_end_latency_s\":0.0015,\"prefix_matched_length\":7}",
        "{\"text\":\"quote \\\" \u2713 \\n\",\"b\":true,\"z\":null,\"l\":-123456789012345678}"};
    for (String record : records) {
      for (Routing routing : new Routing[] {null, routing(false), routing(true)}) {
        AnswerEnd end = streamChunks("cmpl-1", "m").end(null, 3, 16, engineRecord(record), routing);
        assertEquals(Buffer.buffer("data: " + end.toJson().encode() + "\n\n"), end.toSse(), record);
      }
    }
    AnswerEnd end = streamChunks("cmpl-1", "m")
        .end(null, 3, 16, engineRecord("{ \"ttft_s\" : 1e-05 , \"s\" : \"a b\" }"), routing(false));
    String sse = end.toSse().toString();
    assertTrue(sse.contains(",\"extra\":{\"ttft_s\":1e-05,\"s\":\"a b\",\"routing\":{"), sse);
    JsonObject streamed = new JsonObject(sse.substring("data: ".length(), sse.length() - 2));
    assertEquals(end.toJson(), streamed);
  }

  /**
   * A whole answer is written straight as bytes: exactly its JSON as the general encoder writes it, whatever the texts,
   * logprobs, echo and suffix, the engine's usage record and the routing; the general encoder
   * where a value needs it (a lone surrogate, NaN).
   */
  @Test
  void wholeAnswerBytesAreItsJson() {
    JsonObject logprobs = new JsonObject().putNull("text_offset")
        .put("token_logprobs", new JsonArray().add(-0.25)).put("tokens", new JsonArray().add(" a\n"))
        .put("top_logprobs", new JsonArray().add(new JsonObject().put(" a\n", -0.25)));
    String[][] texts = {{"", null}, {" plain", "stop"}, {"quote \" \\ \n \u2713 \ud83d\ude00", "length"},
        {"x\ud83dy", "stop"}}; // the last: a lone surrogate, the general path
    UsageExtra[] extras = {null, engineRecord("{}"),
        engineRecord("{\"ttft_s\":0.0123,\"prefix_matched_length\":7}"),
        UsageExtra.of(new JsonObject().put("nested", new JsonObject().put("a", new JsonArray().add(1)))
            .put("output_token_ids", new JsonArray())),
        UsageExtra.of(new JsonObject().put("nan", Double.NaN))};
    for (int n = 1; n <= 2; n++) {
      for (String[] echoSuffix : new String[][] {{null, null}, {"echo: ", " \u00e9nd"}}) {
        for (Integer lp : new Integer[] {null, 1}) {
          for (UsageExtra extra : extras) {
            for (Routing routing : new Routing[] {null, routing(true)}) {
              for (String[] text : texts) {
                ChoiceLedger ledger = new ChoiceLedger(n);
                for (int i = 0; i < n; i++) {
                  ledger.apply(i, new ChoiceDelta(text[0], lp == null ? null : logprobs.copy(), null));
                  ledger.apply(i, new ChoiceDelta("", null, text[1]));
                }
                AnswerEnd end = wholeChunks(echoSuffix[0], echoSuffix[1], n, lp)
                    .end(ledger, 3, 16, extra, routing);
                Buffer json; // what the answer's JSON was written as before: the general encoder
                try {
                  json = FastJson.toBuffer(end.toJson());
                } catch (RuntimeException notJson) {
                  continue; // NaN: Jackson refuses it either way; nothing to compare
                }
                String where = text[0] + " / " + n + " / " + echoSuffix[0] + " / " + lp + " / "
                    + (extra == null ? null : extra.json()) + " / " + (routing != null);
                assertEquals(json, end.toJsonBuffer(), where);
                // what a chat's whole answer reads of it: the choices and the usage's bytes
                AnswerEnd fromJson = AnswerEnd.of(end.toJson(), end);
                assertEquals(fromJson.wholeChoices(), end.wholeChoices(), where);
                JsonBytes usage = JsonBytes.writer();
                if (end.writeUsage(usage)) {
                  assertEquals(FastJson.toBuffer(end.usage()), usage.toBuffer(), where);
                }
              }
            }
          }
        }
      }
    }
    // an engine's own spelling of a number goes through, as in a stream's usage chunk
    ChoiceLedger ledger = new ChoiceLedger(1);
    ledger.apply(0, new ChoiceDelta("hi", null, "stop"));
    AnswerEnd end = wholeChunks(null, null, 1, null)
        .end(ledger, 3, 1, engineRecord("{\"ttft_s\":1e-05}"), null);
    JsonObject whole = new JsonObject(end.toJsonBuffer());
    assertEquals(end.toJson(), whole);
    assertTrue(end.toJsonBuffer().toString().contains("\"extra\":{\"ttft_s\":1e-05}"),
        end.toJsonBuffer().toString());
  }

  private static ClientChunks wholeChunks(String echo, String suffix, int n, Integer logprobs) {
    return new ClientChunks(new CompletionJob("cmpl-w", 1_796_000_000L, "m",
        new JsonInts(new int[] {1, 2, 3}), echo, suffix, n, 8, false, false, logprobs, 0.0, null,
        new JsonObject(), new Cancellation()));
  }

  /** usage.extra as the scanner reads it from an engine's last chunk. */
  private static UsageExtra engineRecord(String record) {
    byte[] chunk = ("{\"choices\":[],\"usage\":{\"completion_tokens\":16,\"extra\":" + record + "}}")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    UsageExtra extra = EngineChunk.parse(chunk, 0, chunk.length).usageExtra();
    assertTrue(extra.bytes() != null, record);
    return extra;
  }

  /** usage.extra: the engine's record without its token ids, the routing beside it. */
  @Test
  void usageExtraIsTheEnginesRecordWithTheRouting() {
    JsonObject engine = new JsonObject().put("ttft_s", 0.5).put("routing", "engine's")
        .put("output_token_ids", new JsonArray().add(new JsonArray().add(1))).put("cached", 4);
    JsonObject usage = streamChunks("cmpl-1", "m").end(null, 3, 2, UsageExtra.of(engine), routing(true))
        .usage();
    assertEquals(new JsonObject().put("prompt_tokens", 3).put("completion_tokens", 2)
        .put("total_tokens", 5).put("extra", new JsonObject().put("ttft_s", 0.5)
            .put("routing", routing(true).toJson()).put("cached", 4)), usage);
    assertEquals("{\"ttft_s\":0.5,\"routing\":{\"policy\":\"cache-aware\",\"decode\":{\"engine\":3,"
        + "\"reason\":\"prefix\",\"predicted_prefix_tokens\":12,\"load\":5},\"pd\":{\"policy\":"
        + "\"adaptive\",\"decision\":\"partial\",\"balance_factor\":0.375,\"why\":"
        + "\"P's queue 2, D's 1: \\\"partial\\\" \u00e9\"},\"prefill\":{\"engine\":0,\"reason\":"
        + "\"least-loaded\",\"predicted_prefix_tokens\":0,\"load\":0}},\"cached\":4}",
        usage.getJsonObject("extra").encode());
    // nothing but the ids: no extra at all, and no routing on its own
    JsonObject idsOnly = new JsonObject().put("output_token_ids", new JsonArray());
    assertEquals(ClientChunks.usage(3, 2),
        streamChunks("cmpl-1", "m").end(null, 3, 2, UsageExtra.of(idsOnly), routing(false)).usage());
    assertEquals(ClientChunks.usage(3, 2),
        streamChunks("cmpl-1", "m").end(null, 3, 2, null, routing(false)).usage());
  }

  /** The routing record's bytes are its JSON. */
  @Test
  void routingBytesAreItsJson() {
    for (Routing r : new Routing[] {routing(false), routing(true)}) {
      JsonBytes w = JsonBytes.threadWriter();
      assertTrue(r.write(w));
      Buffer out = Buffer.buffer();
      w.appendTo(out);
      assertEquals(r.toJson().encode(), out.toString());
    }
    assertEquals(3, routing(true).servingEngine());
  }
}
