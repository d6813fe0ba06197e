package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The scanner against Jackson: on every chunk it reads it must read what Jackson reads, and it
 * must give up on every chunk Jackson refuses.
 */
class ChunkScannerTest {

  private static final List<String> READ = List.of(
      "{\"id\":\"cmpl-1\",\"choices\":[{\"index\":0,\"text\":\"Hello\",\"logprobs\":null,"
          + "\"finish_reason\":null,\"token_ids\":[15496]}],\"created\":1733,\"model\":\"m\","
          + "\"object\":\"text_completion\",\"usage\":null}",
      " { \"choices\" : [ { \"index\" : 12 , \"text\" : \"a\\\"b\\\\c\\/\\n\\t\\u00e9\\ud83d\\ude00\" ,"
          + " \"finish_reason\" : \"stop\" , \"token_ids\" : [ ] } ] } \r\n",
      "{\"choices\":[{\"text\":\"h\u00e9llo \u2713 \ud83d\ude00 \u4e2d\u6587\",\"index\":1},"
          + "{\"index\":0,\"text\":null,\"finish_reason\":\"preempt\",\"token_ids\":null}]}",
      "{\"choices\":null,\"x\":{\"a\":[1,-2.5e+3,0,0.0,true,false,null,\"s\\u0041\",{}],\"b\":[]},"
          + "\"y\":-0,\"z\":1E9}",
      "{\"choices\":[],\"choices\":[{\"index\":3,\"index\":4,\"text\":\"x\",\"text\":\"y\"}]}",
      "{}",
      "{\"choices\":[{}]}",
      "{\"error\":null,\"usage\":null,\"choices\":[{\"logprobs\":null,\"index\":999999999}]}",
      "{\"choices\":[{\"index\":0,\"text\":\"\\u0000\\u001f\\b\\f\\r\",\"token_ids\":[0,7,123456789]}]}",
      "{\"id\":\"cmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":32,\"completion_tokens\":16,"
          + "\"total_tokens\":48,\"extra\":{\"ttft_s\":1.25E-4,\"end_to_end_latency_s\":0.0021,"
          + "\"output_token_ids\":[[1,2,3],[]],\"big\":2147483648,\"neg\":-2147483648,"
          + "\"long\":-123456789012345678,\"z\":-0,\"f\":-0.0,\"e\":1e400,\"t\":true,\"n\":null,"
          + "\"s\":\"\\u00e9\u00e9\",\"o\":{\"k\\\"\":[false,{}]}}}}",
      "{\"usage\":{\"completion_tokens\":2.9,\"extra\":[1]},\"usage\":{\"completion_tokens\":7}}",
      "{\"usage\":{}}",
      // usage members the router does not keep are checked and skipped, whatever their numbers
      "{\"choices\":[],\"usage\":{\"completion_tokens\":3,\"n\":12345678901234567890}}",
      "{\"usage\":{\"completion_tokens\":5,\"extra\":{\"a\":1}},\"usage\":null}",
      "{\"usage\":{\"extra\":{\"a\":1},\"completion_tokens\":\"5\",\"extra\":5}}",
      "{\"usage\":{\"completion_tokens\":12345678901,\"extra\":null}}",
      // flat records (kept as bytes by the scanner) and records just off flat (read as objects)
      "{\"usage\":{\"extra\":{ \"ttft_s\" : 1e-05 ,\"s\":\"a \\\" b\\\\\",\"prefix_matched_length\":7,"
          + "\"cached_tokens\":9.5,\"t\":true,\"f\":false,\"n\":null,\"big\":-123456789012345678}}}",
      "{\"usage\":{\"extra\":{\"cached_tokens\":3,\"prefix_matched_length\":\"x\"}}}",
      "{\"usage\":{\"extra\":{\"a\":1,\"a\":2.5,\"cached_tokens\":1,\"cached_tokens\":2}}}",
      "{\"usage\":{\"extra\":{\"routing\":1,\"prefix_matched_length\":4}}}",
      "{\"usage\":{\"extra\":{\"k\\u0041\":1,\"caf\u00e9\":2}}}",
      "{\"usage\":{\"extra\":{\"huge\":12345678901234567890.5,\"x\":[],\"y\":{}}}}",
      "{\"usage\":{\"extra\":{}}}");

  /** Jackson reads these; the scanner leaves them to it. */
  private static final List<String> LEFT_TO_JACKSON = List.of(
      "{\"error\":{\"message\":\"boom\"}}",
      "{\"choices\":[{\"index\":0,\"text\":\"a\",\"logprobs\":{\"tokens\":[\"a\"]}}]}",
      "{\"choices\":[{\"index\":1234567890}]}",
      "{\"choices\":[{\"index\":-0}]}",
      "{\"choices\":[{\"token_ids\":[-1]}]}",
      "{\"ch\\u006fices\":[]}",
      "{\"caf\u00e9\":1}");

  /** Jackson refuses these; so must the scanner. */
  private static final List<String> MALFORMED = List.of(
      "[1]", "{\"choices\":{}}", "{\"choices\":[1]}", "{\"choices\":[{\"index\":\"0\"}]}",
      "{\"choices\":[{\"text\":5}]}", "{\"choices\":[{\"token_ids\":[1.5]}]}", "{\"usage\":3}",
      "{\"a\":1} {\"b\":2}", "{\"a\":", "not json", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}",
      "{\"a\":+1}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":nullx}", "{\"a\":[1,]}", "{\"a\":1,}",
      "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"tab\there\"}", "{'a':1}", "{\"a\" 1}",
      "{\"choices\":[{\"text\":\"\u0001\"}]}", "{\"choices\":[{\"index\":1e1}]}",
      "{\"choices\":[{\"index\":0,}]}", "{\"choices\":[{\"text\":\"open}]}", "", "   ");

  @Test
  void readsWhatJacksonReads() {
    for (String json : READ) {
      byte[] b = ("zz" + json + "zz").getBytes(StandardCharsets.UTF_8);
      EngineChunk fast = ChunkScanner.scan(b, 2, b.length - 4);
      assertNotNull(fast, json);
      assertSame(EngineChunk.jackson(b, 2, b.length - 4), fast, json);
    }
  }

  @Test
  void leavesOtherShapesToJackson() {
    for (String json : LEFT_TO_JACKSON) {
      byte[] b = json.getBytes(StandardCharsets.UTF_8);
      assertNull(ChunkScanner.scan(b, 0, b.length), json);
      EngineChunk.jackson(b, 0, b.length); // and Jackson reads it
    }
  }

  @Test
  void givesUpOnWhatJacksonRefuses() {
    for (String json : MALFORMED) {
      byte[] b = json.getBytes(StandardCharsets.UTF_8);
      assertNull(ChunkScanner.scan(b, 0, b.length), json);
      assertRefusedByJackson(b, json);
    }
  }

  @Test
  void givesUpOnMalformedUtf8() {
    byte[][] bad = {{(byte) 0xc0, (byte) 0xaf}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
        {(byte) 0xe2, (byte) 0x28, (byte) 0xa1}, {(byte) 0xf5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
        {(byte) 0xe2, (byte) 0x82}, {(byte) 0x80}};
    for (byte[] seq : bad) {
      byte[] head = "{\"choices\":[{\"text\":\"a".getBytes(StandardCharsets.US_ASCII);
      byte[] tail = "\"}]}".getBytes(StandardCharsets.US_ASCII);
      byte[] b = new byte[head.length + seq.length + tail.length];
      System.arraycopy(head, 0, b, 0, head.length);
      System.arraycopy(seq, 0, b, head.length, seq.length);
      System.arraycopy(tail, 0, b, head.length + seq.length, tail.length);
      assertNull(ChunkScanner.scan(b, 0, b.length));
    }
  }

  /** Every one-byte change, cut and duplication of the readable chunks: never a different reading. */
  @Test
  void mutationsAreReadAsJacksonReadsThemOrLeftToIt() {
    Random random = new Random(14);
    byte[] alphabet = "{}[]\",:\\ 0123456789-.eEtrunlfasxbu\u00e9".getBytes(StandardCharsets.UTF_8);
    int read = 0;
    for (String json : READ) {
      byte[] original = json.getBytes(StandardCharsets.UTF_8);
      for (int n = 0; n < 3000; n++) {
        byte[] b = original.clone();
        int at = random.nextInt(b.length);
        int kind = random.nextInt(3);
        if (kind == 0) {
          b[at] = alphabet[random.nextInt(alphabet.length)];
        } else if (kind == 1) {
          b = java.util.Arrays.copyOf(b, at);
        } else {
          byte[] longer = new byte[b.length + 1];
          System.arraycopy(b, 0, longer, 0, at + 1);
          System.arraycopy(b, at, longer, at + 1, b.length - at);
          b = longer;
        }
        EngineChunk fast = ChunkScanner.scan(b, 0, b.length);
        if (fast != null) {
          read++;
          String shown = new String(b, StandardCharsets.UTF_8);
          EngineChunk slow;
          try {
            slow = EngineChunk.jackson(b, 0, b.length);
          } catch (IllegalArgumentException e) {
            fail("the scanner read what Jackson refuses (" + e.getMessage() + "): " + shown);
            return;
          }
          assertSame(slow, fast, shown);
        }
      }
    }
    // the mutations must also have left many chunks readable, or this test proves little
    assertEquals(true, read > 5000, "only " + read + " mutated chunks were readable");
  }

  private static void assertRefusedByJackson(byte[] b, String json) {
    try {
      EngineChunk.jackson(b, 0, b.length);
    } catch (IllegalArgumentException expected) {
      return;
    }
    fail("Jackson reads " + json);
  }

  static void assertSame(EngineChunk expected, EngineChunk actual, String json) {
    assertEquals(expected.choices().size(), actual.choices().size(), json);
    for (int k = 0; k < expected.choices().size(); k++) {
      EngineChunk.Choice e = expected.choices().get(k);
      EngineChunk.Choice a = actual.choices().get(k);
      assertEquals(e.index(), a.index(), json);
      assertEquals(e.text(), a.text(), json);
      assertEquals(e.finishReason(), a.finishReason(), json);
      assertArrayEquals(e.tokenIds(), a.tokenIds(), json);
      assertEquals(e.logprobs(), a.logprobs(), json);
    }
    assertEquals(expected.completionTokens(), actual.completionTokens(), json);
    // as text: JsonObject.equals takes 1, 1L and 1.0 for one another
    assertEquals(expected.usageExtra() == null ? null : expected.usageExtra().json().encode(),
        actual.usageExtra() == null ? null : actual.usageExtra().json().encode(), json);
    assertEquals(types(expected.usageExtra() == null ? null : expected.usageExtra().json()),
        types(actual.usageExtra() == null ? null : actual.usageExtra().json()), json);
    if (expected.usageExtra() != null) {
      assertEquals(expected.usageExtra().cachedTokens(), actual.usageExtra().cachedTokens(), json);
    }
    assertEquals(expected.error() == null, actual.error() == null, json);
  }

  /**
   * A flat usage.extra is kept as the engine's bytes without the white space between tokens, and
   * made into a JsonObject only when asked; anything else is the JsonObject from the start.
   */
  @Test
  void aFlatUsageExtraIsKeptAsCompactBytes() {
    String flat = "{ \"ttft_s\" : 1e-05 ,\n\"s\":\"a \\\" b\\\\\", \"prefix_matched_length\": 7 ,"
        + " \"n\" :null }";
    UsageExtra extra = scan("{\"usage\":{\"extra\":" + flat + "}}").usageExtra();
    assertEquals("{\"ttft_s\":1e-05,\"s\":\"a \\\" b\\\\\",\"prefix_matched_length\":7,\"n\":null}",
        new String(extra.bytes(), StandardCharsets.UTF_8));
    assertEquals(7, extra.cachedTokens());
    assertEquals(new JsonObject().put("ttft_s", 1e-5).put("s", "a \" b\\")
        .put("prefix_matched_length", 7).putNull("n"), extra.json());
    assertNull(extra.outputTokenIds());
    assertEquals(UsageExtra.of(extra.json().copy()), extra);
    assertEquals(-1, scan("{\"usage\":{\"extra\":{\"ttft_s\":0.5}}}").usageExtra().cachedTokens());
    assertEquals("{}", new String(scan("{\"usage\":{\"extra\":{ }}}").usageExtra().bytes(),
        StandardCharsets.UTF_8));
    for (String notFlat : List.of("{\"output_token_ids\":[[1]]}", "{\"routing\":\"x\"}",
        "{\"a\":1,\"b\":2,\"a\":3}", "{\"o\":{}}", "{\"k\\u0041\":1}")) {
      UsageExtra other = scan("{\"usage\":{\"extra\":" + notFlat + "}}").usageExtra();
      assertNull(other.bytes(), notFlat);
      assertEquals(new JsonObject(notFlat), other.json(), notFlat);
    }
    assertEquals(new JsonArray().add(new JsonArray().add(1)),
        scan("{\"usage\":{\"extra\":{\"output_token_ids\":[[1]]}}}").usageExtra().outputTokenIds());
    StringBuilder many = new StringBuilder("{");
    for (int k = 0; k < 40; k++) {
      many.append(k == 0 ? "" : ",").append("\"m").append(k).append("\":").append(k);
    }
    UsageExtra wide = scan("{\"usage\":{\"extra\":" + many + "}}}").usageExtra();
    assertNull(wide.bytes(), "more names than are checked against each other: read as an object");
    assertEquals(40, wide.json().size());
  }

  private static EngineChunk scan(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    EngineChunk chunk = ChunkScanner.scan(b, 0, b.length);
    assertNotNull(chunk, json);
    return chunk;
  }

  /** Every value's class, depth first: the number types must be Jackson's too. */
  private static String types(Object v) {
    if (v instanceof JsonObject o) {
      StringBuilder sb = new StringBuilder("{");
      o.getMap().forEach((k, x) -> sb.append(k).append('=').append(types(x)).append(','));
      return sb.append('}').toString();
    }
    if (v instanceof JsonArray a) {
      StringBuilder sb = new StringBuilder("[");
      a.getList().forEach(x -> sb.append(types(x)).append(','));
      return sb.append(']').toString();
    }
    return v == null ? "null" : v.getClass().getSimpleName();
  }
}
