package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.jackson.JacksonCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Request bodies read by JsonTree against Vert.x's codec: the same tree, or left to the codec. */
class JsonTreeTest {

  private static final JacksonCodec CODEC = new JacksonCodec();

  private static final List<String> BODIES = List.of(
      "{\"model\":\"m\",\"prompt\":[1,2,3],\"max_tokens\":16,\"temperature\":0.7,\"top_p\":1.0,"
          + "\"seed\":12345678901,\"stream\":true,\"stream_options\":{\"include_usage\":true},"
          + "\"stop\":[\"\\n\",\"END\"],\"logit_bias\":{\"17\":-100},\"user\":\"h\u00e9 \ud83d\ude00\"}",
      " {\"messages\":[{\"role\":\"user\",\"content\":\"Hi \\\"there\\\"\\u0021\"}],"
          + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
          + "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":-1.5e3}}}}}],"
          + "\"n\":2,\"echo\":false,\"suffix\":null,\"big\":2147483648,\"neg\":-2147483648} \n",
      "{}", "{\"a\":{},\"b\":[],\"c\":[[],{}],\"a\":1}");

  private static JsonObject codec(byte[] b) {
    return (JsonObject) CODEC.fromBuffer(Buffer.buffer(b), Object.class);
  }

  private static void assertSame(JsonObject expected, JsonObject actual, String json) {
    assertEquals(expected.encode(), actual.encode(), json);
    assertEquals(types(expected.getMap()), types(actual.getMap()), json);
  }

  @Test
  void readsBodiesAsTheCodecReadsThem() {
    for (String json : BODIES) {
      byte[] b = ("[[" + json + "]]").getBytes(StandardCharsets.UTF_8);
      JsonObject fast = JsonTree.object(b, 2, b.length - 4);
      assertNotNull(fast, json);
      assertSame(codec(json.getBytes(StandardCharsets.UTF_8)), fast, json);
      assertSame(fast, FastJson.parseObject(Buffer.buffer(json)), json);
    }
  }

  @Test
  void fractionsAreTheDoublesTheCodecReads() {
    Random random = new Random(13);
    StringBuilder json = new StringBuilder("{\"d\":[0.1,-0.0,1e-7,1E+21,4.9e-324,2.5E-3");
    for (int i = 0; i < 5000; i++) {
      double d = Double.longBitsToDouble(random.nextLong());
      if (Double.isFinite(d)) {
        json.append(',').append(d);
      }
      json.append(',').append(random.nextDouble() * 1000);
    }
    byte[] b = json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    List<Object> expected = codec(b).getJsonArray("d").getList();
    List<Object> read = JsonTree.object(b, 0, b.length).getJsonArray("d").getList();
    assertEquals(expected.size(), read.size());
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(Double.doubleToLongBits((Double) expected.get(i)),
          Double.doubleToLongBits((Double) read.get(i)), String.valueOf(expected.get(i)));
    }
  }

  @Test
  void leavesToTheCodecWhatItMayReadDifferentlyOrRefuses() {
    for (String json : new String[] {"{\"a\":1} // comment", "{\"a\":/* c */1}",
        "{\"a\":12345678901234567890}", "[1]", "\"s\"", "", "{\"a\":01}", "{\"a\":1,}",
        "{\"a\":\"\t\"}", "{\"a\":1}}", "{\"a\":NaN}"}) {
      byte[] b = json.getBytes(StandardCharsets.UTF_8);
      assertNull(JsonTree.object(b, 0, b.length), json);
    }
    // the codec itself reads comments (Vert.x enables them) and big integers: still read so
    assertEquals(1, FastJson.parseObject(Buffer.buffer("{\"a\":/* c */1}")).getInteger("a"));
  }

  /** One-byte changes of every body: never a reading the codec does not make. */
  @Test
  void mutationsAreReadAsTheCodecReadsThemOrLeftToIt() {
    Random random = new Random(5);
    byte[] alphabet = "{}[]\",:\\ 0123456789-.eEtrunlfa/\u00e9".getBytes(StandardCharsets.UTF_8);
    int read = 0;
    for (String json : BODIES) {
      byte[] original = json.getBytes(StandardCharsets.UTF_8);
      for (int n = 0; n < 3000; n++) {
        byte[] b = original.clone();
        b[random.nextInt(b.length)] = alphabet[random.nextInt(alphabet.length)];
        JsonObject fast = JsonTree.object(b, 0, b.length);
        if (fast == null) {
          continue;
        }
        read++;
        String shown = new String(b, StandardCharsets.UTF_8);
        Object slow;
        try {
          slow = CODEC.fromBuffer(Buffer.buffer(b), Object.class);
        } catch (RuntimeException e) {
          fail("read what the codec refuses (" + e.getMessage() + "): " + shown);
          return;
        }
        assertTrue(slow instanceof JsonObject, shown);
        assertSame((JsonObject) slow, fast, shown);
      }
    }
    assertTrue(read > 3000, "only " + read + " mutated bodies were readable");
  }

  /**
   * Strings are scanned eight bytes at a time: every byte value at every position of a long key
   * and a long value (both word halves, the tail) is read as the codec reads it, or left to it.
   */
  @Test
  void everyByteAtEveryPositionOfAStringIsReadAsTheCodecReadsIt() {
    String plain = "abcdefghijklmnopqrstu"; // 21 bytes: two words and a tail
    int read = 0;
    for (int value = 0; value < 256; value++) {
      for (int at = 0; at < plain.length(); at++) {
        for (boolean inKey : new boolean[] {false, true}) {
          byte[] s = plain.getBytes(StandardCharsets.US_ASCII);
          s[at] = (byte) value;
          byte[] head = (inKey ? "{\"x\":1,\"" : "{\"x\":\"").getBytes(StandardCharsets.US_ASCII);
          byte[] tail = (inKey ? "\":2}" : "\"}").getBytes(StandardCharsets.US_ASCII);
          byte[] b = new byte[head.length + s.length + tail.length];
          System.arraycopy(head, 0, b, 0, head.length);
          System.arraycopy(s, 0, b, head.length, s.length);
          System.arraycopy(tail, 0, b, head.length + s.length, tail.length);
          JsonObject fast = JsonTree.object(b, 0, b.length);
          String shown = value + " at " + at + (inKey ? " in a key" : " in a value");
          Object slow;
          try {
            slow = CODEC.fromBuffer(Buffer.buffer(b), Object.class);
          } catch (RuntimeException e) {
            assertNull(fast, "read what the codec refuses: " + shown);
            continue;
          }
          if (fast != null) {
            read++;
            assertSame((JsonObject) slow, fast, shown);
          }
        }
      }
    }
    assertTrue(read >= 2 * 21 * 90, "only " + read + " strings were read");
  }

  @Test
  void integersAreReadWithTheCodecsTypes() {
    for (String n : new String[] {"0", "-0", "7", "-7", "2147483647", "2147483648", "-2147483648",
        "-2147483649", "999999999999999999", "-999999999999999999", "1.5", "-0.0", "1e3"}) {
      String json = "{\"n\":" + n + ",\"a\":[" + n + "]}";
      byte[] b = json.getBytes(StandardCharsets.US_ASCII);
      JsonObject fast = JsonTree.object(b, 0, b.length);
      assertNotNull(fast, json);
      assertSame(codec(b), fast, json);
    }
  }

  /**
   * A top-level array of plain non-negative ints (a prompt) is one int array, with its bytes when
   * they are compact; every other array is read as the codec reads it, and nested ones as Lists.
   */
  @Test
  void topLevelIntArraysAreReadIntoOneIntArray() {
    String[] ints = {"[3,4,5]", "[0]", "[0,10,2147483647]", "[ 1, 2 ]", "[1\n,2]", "[7 ]"};
    for (String a : ints) {
      String json = "{\"prompt\":" + a + ",\"n\":1}";
      JsonObject fast = readAsTheCodec(json);
      assertTrue(fast.getMap().get("prompt") instanceof JsonInts, json);
      JsonInts read = (JsonInts) fast.getMap().get("prompt");
      boolean compact = a.indexOf(' ') < 0 && a.indexOf('\n') < 0;
      assertEquals(compact ? a : null, read.json() == null ? null
          : new String(read.json(), StandardCharsets.US_ASCII), json);
    }
    String[] others = {"[]", "[-1]", "[1.0]", "[1e2]", "[2147483648]", "[12345678901]", "[1,\"a\"]",
        "[[1]]", "[1,null]", "[true]", "[1,-2]", "[1,2.5]", "[{}]"};
    for (String a : others) {
      String json = "{\"prompt\":" + a + ",\"deep\":{\"ids\":[1,2]}}";
      JsonObject fast = readAsTheCodec(json);
      assertTrue(!(fast.getMap().get("prompt") instanceof JsonInts), json);
      assertTrue(!(fast.getJsonObject("deep").getMap().get("ids") instanceof JsonInts),
          "nested: " + json);
    }
    for (String a : new String[] {"[01]", "[1,]", "[1", "[1 2]", "[,1]"}) {
      byte[] b = ("{\"prompt\":" + a + "}").getBytes(StandardCharsets.US_ASCII);
      assertNull(JsonTree.object(b, 0, b.length), a + ": the codec refuses it");
    }
  }

  /** {@code json} read by JsonTree: read, and the same tree as the codec's. */
  private static JsonObject readAsTheCodec(String json) {
    byte[] b = json.getBytes(StandardCharsets.US_ASCII);
    JsonObject fast = JsonTree.object(b, 0, b.length);
    assertNotNull(fast, json);
    assertSame(codec(b), fast, json);
    return fast;
  }

  @Test
  void knownKeysAreSharedAndEveryOtherKeyIsReadAsItIs() {
    String json = "{\"model\":1,\"mo\\u0064el2\":2,\"mode\":3,\"models\":4,\"Model\":5,"
        + "\"m\\u00e9\":6,\"\":7,\"max_tokens\":8,\"prompt_tokens\":{\"ttft_s\":0.5},"
        + "\"\u00e9t\u00e9\":9,\"stream\\n\":10}";
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    JsonObject first = JsonTree.object(b, 0, b.length);
    assertNotNull(first, json);
    assertSame(codec(b), first, json);
    JsonObject second = JsonTree.object(b, 0, b.length);
    List<String> a = List.copyOf(first.fieldNames());
    List<String> c = List.copyOf(second.fieldNames());
    for (String known : List.of("model", "max_tokens", "prompt_tokens")) {
      assertTrue(a.get(a.indexOf(known)) == c.get(c.indexOf(known)), known + " is not shared");
    }
    assertTrue(a.get(a.indexOf("models")) != c.get(c.indexOf("models")), "an unlisted key shared");
    for (String name : JsonKeys.names()) {
      byte[] k = name.getBytes(StandardCharsets.US_ASCII);
      assertTrue(JsonKeys.known(k, 0, k.length) == name, name);
      assertTrue(JsonKeys.known(k, 0, k.length - 1) != name, name + " without its last byte");
    }
  }

  private static String types(Object v) {
    if (v instanceof Map<?, ?> m) {
      StringBuilder sb = new StringBuilder("Map{");
      m.forEach((k, x) -> sb.append(k).append('=').append(types(x)).append(','));
      return sb.append('}').toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder sb = new StringBuilder("List[");
      l.forEach(x -> sb.append(types(x)).append(','));
      return sb.append(']').toString();
    }
    return v == null ? "null" : v.getClass().getSimpleName();
  }
}
