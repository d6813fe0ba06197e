package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.jackson.JacksonCodec;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The byte writer against the codec it stands in for: the same bytes, or it leaves the value. */
class JsonBytesTest {

  private static final JacksonCodec CODEC = new JacksonCodec();
  /** Jackson with its fast double writer, as JsonBytes writes doubles (see its class comment). */
  private static final JsonFactory SHORTEST_DOUBLES =
      JsonFactory.builder().enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();

  /** What Vert.x's codec writes for {@code json}, but with Jackson's fast double writer. */
  private static String codec(JsonObject json) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = SHORTEST_DOUBLES.createGenerator(out)) {
      JacksonCodec.encodeJson(json, g);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return out.toString();
  }

  private static String fast(Object json) {
    JsonBytes b = JsonBytes.of(json);
    return b == null ? null : new String(b.bytes(), 0, b.length(), StandardCharsets.UTF_8);
  }

  private static void assertSameAsCodec(JsonObject json) {
    String expected = codec(json);
    assertEquals(expected, fast(json));
    assertEquals(expected, FastJson.encode(json));
    assertEquals(expected, FastJson.toBuffer(json).toString(StandardCharsets.UTF_8));
    assertEquals("x" + expected, FastJson.appendTo(io.vertx.core.buffer.Buffer.buffer("x"), json)
        .toString(StandardCharsets.UTF_8));
  }

  @Test
  void everyCharacterIsWrittenAsTheCodecWritesIt() {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x3000; c++) {
      if (!Character.isSurrogate(c)) {
        all.append(c);
      }
    }
    all.append("\ud83d\ude00 \uffff \ufeff \u2028\u2029 \"\\/");
    assertSameAsCodec(new JsonObject().put(all.toString(), all.toString()));
  }

  @Test
  void numbersAreWrittenAsTheCodecWritesThem() {
    Random r = new Random(7);
    JsonArray a = new JsonArray().add(0).add(-1).add(Integer.MIN_VALUE).add(Integer.MAX_VALUE)
        .add(Long.MIN_VALUE).add(Long.MAX_VALUE).add(0.0).add(-0.0).add(1e-7).add(1e21).add(0.1)
        .add(123456.789).add(Double.MIN_VALUE).add(Double.MAX_VALUE).add(1.5f).add(-3.4e38f)
        .add(true).add(false).addNull();
    for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10; p *= 10) { // every digit count
      a.add(p - 1).add(p).add(-p).add((int) p);
    }
    for (int i = 0; i < 2000; i++) {
      double d = Double.longBitsToDouble(r.nextLong());
      if (Double.isFinite(d)) {
        a.add(d);
      }
      a.add(r.nextDouble() * 100).add(r.nextLong()).add(r.nextInt()).add(r.nextFloat());
    }
    assertSameAsCodec(new JsonObject().put("n", a));
  }

  @Test
  void randomTreesAreWrittenAsTheCodecWritesThem() {
    Random r = new Random(42);
    for (int i = 0; i < 3000; i++) {
      assertSameAsCodec(new JsonObject(randomMap(r, 0)));
    }
  }

  @Test
  void tokenIdsAreWrittenAsTheCodecWritesTheirList() {
    int[][] cases = {{}, {0}, {7, 128, 32_000, 151_643, Integer.MAX_VALUE, -1, Integer.MIN_VALUE}};
    for (int[] ids : cases) {
      JsonObject body = new JsonObject().put("prompt", new JsonInts(ids)).put("n", 1);
      assertSameAsCodec(body);
      JsonArray boxed = new JsonArray();
      for (int id : ids) {
        boxed.add(id);
      }
      assertEquals(new JsonObject().put("prompt", boxed).put("n", 1).encode(), fast(body));
      assertEquals(boxed, body.copy().getJsonArray("prompt"), "a copy holds the same ids");
    }
  }

  /** Every digit count, in a list that grows the writer from empty, as the codec writes it. */
  @Test
  void longTokenIdListsAreWrittenAsTheCodecWritesThem() {
    Random r = new Random(3);
    int[] ids = new int[5000];
    for (int i = 0; i < ids.length; i++) {
      int digits = 1 + i % 10;
      ids[i] = i % 97 == 0 ? -r.nextInt(Integer.MAX_VALUE)
          : digits == 10 ? 1_000_000_000 + r.nextInt(1_147_483_647)
          : (int) Math.pow(10, digits - 1) + r.nextInt(9 * (int) Math.pow(10, digits - 1));
    }
    assertSameAsCodec(new JsonObject().put("prompt", new JsonInts(ids)));
  }

  /** A prompt read with its bytes is written as those bytes: the same as writing its ids. */
  @Test
  void tokenIdsReadWithTheirBytesAreWrittenAsThoseBytes() {
    String json = "{\"prompt\":[0,1,10,2147483647,999],\"n\":1}";
    JsonObject read = FastJson.parseObject(io.vertx.core.buffer.Buffer.buffer(json));
    JsonInts ids = (JsonInts) read.getMap().get("prompt");
    assertNotNull(ids.json(), "compact bytes are kept");
    assertEquals(json, fast(read));
    assertSameAsCodec(read);
  }

  /** Ids written ahead (a tokenizer's worker) carry the bytes the writer would have written. */
  @Test
  void tokenIdsWrittenAheadAreTheirJson() {
    int[][] cases = {{}, {0}, {7, 128, 32_000, 151_643, Integer.MAX_VALUE, 5, 42}};
    for (int[] ids : cases) {
      JsonInts written = JsonInts.written(ids);
      assertSame(ids, written.ids());
      assertEquals(fast(new JsonObject().put("prompt", new JsonInts(ids))),
          "{\"prompt\":" + new String(written.json(), java.nio.charset.StandardCharsets.US_ASCII)
              + "}");
      assertSameAsCodec(new JsonObject().put("prompt", written).put("n", 1));
    }
  }

  @Test
  void doublesAreTheShortestDecimalThatReadsBackTheSameBits() {
    // JDK 17's Double.toString (Vert.x's codec) writes a digit too many here
    assertEquals("{\"d\":-9.229029794439661E17}",
        fast(new JsonObject().put("d", -9.2290297944396608E17)));
    Random r = new Random(11);
    for (int i = 0; i < 20000; i++) {
      double d = Double.longBitsToDouble(r.nextLong());
      if (!Double.isFinite(d)) {
        continue;
      }
      String json = fast(new JsonObject().put("d", d));
      String written = json.substring("{\"d\":".length(), json.length() - 1);
      assertEquals(Double.doubleToLongBits(d), Double.doubleToLongBits(Double.parseDouble(written)),
          written);
      assertTrue(written.length() <= Double.toString(d).length(), written);
    }
  }

  @Test
  void leavesToTheCodecWhatItDoesNotWrite() {
    for (Object odd : new Object[] {Double.NaN, Double.POSITIVE_INFINITY, Float.NaN, "x\ud83dy",
        "\ude00", Instant.EPOCH, new byte[] {1}, BigDecimal.ONE, (short) 3, new StringBuilder("s")}) {
      JsonObject json = new JsonObject().put("a", new JsonArray().add(1)).put("odd", odd);
      assertNull(fast(json), String.valueOf(odd));
    }
    // and FastJson still writes the ones the codec writes
    JsonObject json = new JsonObject().put("t", Instant.EPOCH).put("b", new byte[] {1, 2})
        .put("d", BigDecimal.TEN);
    assertEquals(CODEC.toString(json, false), FastJson.encode(json));
    assertEquals(CODEC.toString(json, false), FastJson.appendTo(io.vertx.core.buffer.Buffer.buffer(),
        json).toString(StandardCharsets.UTF_8));
    assertNotNull(fast(new JsonObject().put("deep", nest(60))));
    assertNull(fast(new JsonObject().put("deep", nest(70))));
  }

  private static Object nest(int depth) {
    return depth == 0 ? 1 : new JsonArray().add(nest(depth - 1));
  }

  private static Map<String, Object> randomMap(Random r, int depth) {
    Map<String, Object> m = new LinkedHashMap<>();
    int n = r.nextInt(6);
    for (int i = 0; i < n; i++) {
      m.put(randomString(r), randomValue(r, depth + 1));
    }
    return m;
  }

  private static Object randomValue(Random r, int depth) {
    int kind = r.nextInt(depth > 4 ? 7 : 11);
    return switch (kind) {
      case 0 -> null;
      case 1 -> randomString(r);
      case 2 -> r.nextInt();
      case 3 -> r.nextLong();
      case 4 -> r.nextBoolean();
      case 5 -> r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20);
      case 6 -> r.nextFloat();
      case 7 -> new JsonObject(randomMap(r, depth));
      case 8 -> randomMap(r, depth); // a raw Map inside a JsonObject, as Vert.x allows
      case 9 -> new JsonArray(randomList(r, depth));
      default -> randomList(r, depth);
    };
  }

  private static List<Object> randomList(Random r, int depth) {
    List<Object> l = new ArrayList<>();
    int n = r.nextInt(5);
    for (int i = 0; i < n; i++) {
      l.add(randomValue(r, depth + 1));
    }
    return l;
  }

  private static String randomString(Random r) {
    String pool = "ab \"\\/\n\r\t\b\f\u0000\u001f\u007f\u00e9\u4e2d\ud83d\ude00";
    StringBuilder sb = new StringBuilder();
    int n = r.nextInt(8);
    for (int i = 0; i < n; i++) {
      int at = r.nextInt(pool.length());
      char c = pool.charAt(at);
      if (Character.isHighSurrogate(c)) {
        sb.append(c).append(pool.charAt(at + 1));
      } else if (!Character.isLowSurrogate(c)) {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
