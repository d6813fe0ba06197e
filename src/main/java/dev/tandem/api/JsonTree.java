package dev.tandem.api;

import com.fasterxml.jackson.core.io.NumberInput;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON values built from bytes by {@link JsonScanner}'s reading, with Jackson's types: numbers
 * as its getNumberValue gives them (Integer where it fits, else Long; fractions as Double), nested
 * containers as Vert.x's codec holds them ({@link #object}: a JsonObject of Maps and Lists, its
 * top-level arrays of plain non-negative ints as {@link JsonInts}) or as JsonObject and JsonArray
 * all the way down ({@link #objectValue}, for engine chunks).
 */
public abstract class JsonTree extends JsonScanner {

  /** One JSON object and nothing else. */
  private static final class Whole extends JsonTree {
    Whole(byte[] bytes, int offset, int end) {
      super(bytes, offset, end);
    }
  }

  protected JsonTree(byte[] bytes, int offset, int end) {
    super(bytes, offset, end);
  }

  /**
   * The JSON object in {@code bytes[offset, offset + length)} as Vert.x's codec reads it (a
   * JsonObject holding Maps, Lists and Jackson's number types), or null where Jackson must read it:
   * not an object, malformed, or beyond what this reads exactly.
   */
  public static JsonObject object(byte[] bytes, int offset, int length) {
    Whole s = new Whole(bytes, offset, offset + length);
    try {
      Map<String, Object> m = s.members(0, true);
      s.ws();
      return s.i == s.end ? new JsonObject(m) : null;
    } catch (GiveUp e) {
      return null;
    }
  }

  /**
   * An object as {@code EngineChunk}'s Jackson reading builds it: JsonObject and JsonArray all the
   * way down, numbers as Jackson gives them.
   */
  protected JsonObject objectValue(int depth) {
    return new JsonObject(members(depth, false));
  }

  /** The members of the object at {@code i}; nested values as {@link #value}. */
  protected Map<String, Object> members(int depth, boolean raw) {
    expect('{');
    Map<String, Object> m = new LinkedHashMap<>();
    if (!emptyContainer('}')) {
      do {
        ws();
        String key = objectKey();
        expect(':');
        m.put(key, value(depth + 1, raw));
      } while (next('}'));
    }
    return m;
  }

  /**
   * Any value; objects and arrays as Map and List when {@code raw} (how Vert.x's codec reads
   * below the top), else as JsonObject and JsonArray.
   */
  protected Object value(int depth, boolean raw) {
    ws();
    if (i >= end || depth > MAX_DEPTH) {
      throw GIVE_UP;
    }
    switch (b[i]) {
      case '"':
        return string();
      case '{': {
        Map<String, Object> m = members(depth, raw);
        return raw ? m : new JsonObject(m);
      }
      case '[': {
        JsonInts ints = raw && depth == 1 ? intArray() : null;
        if (ints != null) {
          return ints;
        }
        i++;
        List<Object> a = new ArrayList<>();
        if (!emptyContainer(']')) {
          do {
            a.add(value(depth + 1, raw));
          } while (next(']'));
        }
        return raw ? a : new JsonArray(a);
      }
      case 't':
        literal("true");
        return Boolean.TRUE;
      case 'f':
        literal("false");
        return Boolean.FALSE;
      case 'n':
        literal("null");
        return null;
      default:
        return number();
    }
  }

  /**
   * The array at {@code i} when it holds only plain non-negative integers that fit an int (a
   * prompt's token ids), read into one int array rather than an Integer per element; its bytes
   * are kept when they are written as {@link JsonBytes} would write them (no white space). Null,
   * with {@code i} where it was, for any other array (empty, a sign, a fraction, an exponent, a
   * leading zero, a larger number, another value), which {@link #value} then reads as it reads
   * any array.
   */
  private JsonInts intArray() {
    byte[] b = this.b; // locals: the JIT keeps them in registers through the loop
    int end = this.end;
    int start = i;
    int j = start + 1;
    boolean compact = true;
    int[] ids = new int[Math.min(1024, (end - j) / 2 + 1)];
    int n = 0;
    int c = j < end ? b[j] : -1;
    while (true) {
      while (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        compact = false;
        c = ++j < end ? b[j] : -1;
      }
      int from = j;
      long v = 0;
      for (int d = c - '0'; d >= 0 && d <= 9; d = c - '0') {
        v = v * 10 + d; // wraps past 19 digits: refused below by the count of digits
        c = ++j < end ? b[j] : -1;
      }
      int digits = j - from;
      if (digits == 0 || digits > 10 || v > Integer.MAX_VALUE || (b[from] == '0' && digits > 1)) {
        return null;
      }
      while (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        compact = false;
        c = ++j < end ? b[j] : -1;
      }
      if (n == ids.length) {
        ids = Arrays.copyOf(ids, n * 2);
      }
      ids[n++] = (int) v;
      if (c != ',') {
        if (c != ']') {
          return null;
        }
        j++;
        break;
      }
      c = ++j < end ? b[j] : -1;
    }
    i = j;
    return new JsonInts(n == ids.length ? ids : Arrays.copyOf(ids, n),
        compact ? Arrays.copyOfRange(b, start, j) : null);
  }

  /**
   * An integer as Integer where it fits, else Long (as Jackson's getNumberValue); else Double, read
   * by Jackson's fast parser (FastDoubleParser: Double.parseDouble's value at a fifth of its cost).
   */
  protected Number number() {
    int from = i;
    skipNumber();
    boolean integral = true;
    for (int k = from; k < i; k++) {
      integral &= b[k] != '.' && b[k] != 'e' && b[k] != 'E';
    }
    if (!integral) {
      String text = new String(b, from, i - from, StandardCharsets.ISO_8859_1);
      return NumberInput.parseDouble(text, true);
    }
    boolean negative = b[from] == '-';
    if (i - from > (negative ? 19 : 18)) {
      throw GIVE_UP; // a BigInteger, perhaps
    }
    long v = 0; // at most 18 digits: no overflow
    for (int k = negative ? from + 1 : from; k < i; k++) {
      v = v * 10 + (b[k] - '0');
    }
    if (negative) {
      v = -v;
    }
    return v == (int) v ? (Number) (int) v : (Number) v;
  }

}
