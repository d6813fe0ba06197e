package dev.tandem.api;

import com.fasterxml.jackson.core.io.NumberOutput;
import io.netty.util.concurrent.FastThreadLocal;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The fast path of {@link FastJson}'s encoding: writes a JSON tree of the plain value types
 * (objects and arrays as Vert.x holds them, {@link JsonInts}, strings, int, long, finite double
 * and float, booleans, null) straight into a byte array, byte for byte as Jackson writes it (same
 * escapes, same number forms; doubles and floats as its fast double writer does, the shortest
 * decimal that reads back as the same value, which JDK 17's Double.toString sometimes is not, at
 * a quarter of its cost). At anything else (another value type, a NaN, a lone UTF-16 surrogate)
 * it stops and says so, and Jackson writes the value. The router encodes an engine
 * body and a stream's usage chunk per request; Jackson's generator set-up and Vert.x's type
 * dispatch per value were most of that.
 *
 * <p>It is also a writer for code that assembles JSON bytes from constant parts and values (a
 * streamed delta: {@link #threadWriter}), so that they reach a Netty buffer in one append rather than
 * one per part, each of which checks the buffer's state.
 */
public final class JsonBytes {

  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};
  private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final int MAX_DEPTH = 64;
  /** Beyond this much room a thread's writer is not kept (after a delta with a huge text). */
  private static final int MAX_KEPT = 64 * 1024;
  /** Netty's thread-local: on an event loop an index into the thread's own table. */
  private static final FastThreadLocal<JsonBytes> THREAD_WRITER = new FastThreadLocal<>() {
    @Override
    protected JsonBytes initialValue() {
      return new JsonBytes();
    }
  };

  private byte[] bytes = new byte[512]; // an engine body for a short prompt fits
  private int length;

  private JsonBytes() {}

  /** {@code value}'s JSON, or null when Jackson must write it. */
  static JsonBytes of(Object value) {
    JsonBytes out = new JsonBytes();
    return value(value, out, 0) ? out : null;
  }

  /** A writer of its own, empty (a loop's pending output). */
  public static JsonBytes writer() {
    return new JsonBytes();
  }

  /**
   * This thread's writer, empty: for a render that ends with {@link #appendTo} before it returns
   * (streamed deltas, one per token; a writer of their own would cost an array per request).
   */
  public static JsonBytes threadWriter() {
    JsonBytes w = THREAD_WRITER.get();
    if (w.bytes.length > MAX_KEPT) {
      w = new JsonBytes();
      THREAD_WRITER.set(w);
    }
    return w.reset();
  }

  /** Empties it (the room made stays). */
  public JsonBytes reset() {
    length = 0;
    return this;
  }

  /** Bytes that are JSON already (constant parts). */
  public JsonBytes raw(byte[] b) {
    writeBytes(b);
    return this;
  }

  /** A buffer's bytes, JSON already (an event framed elsewhere). */
  public JsonBytes raw(Buffer b) {
    return raw(b.getBytes());
  }

  /** {@code len} bytes of {@code b} from {@code off}, JSON already. */
  public JsonBytes raw(byte[] b, int off, int len) {
    ensureWritable(len);
    System.arraycopy(b, off, bytes, length, len);
    length += len;
    return this;
  }

  /** An integer (a choice's index), without boxing it. */
  public JsonBytes number(long v) {
    writeLong(this, v);
    return this;
  }

  /**
   * {@code v} as JSON, as Jackson writes it; false, with nothing written, where Jackson must write
   * it (as for {@link #of}).
   */
  public boolean value(Object v) {
    int mark = length;
    if (value(v, this, 0)) {
      return true;
    }
    length = mark;
    return false;
  }

  /** A copy of what was written, as a buffer of its own. */
  public Buffer toBuffer() {
    return Buffer.buffer(Arrays.copyOf(bytes, length));
  }

  /** Appends what was written to {@code out}, in one append. */
  public void appendTo(Buffer out) {
    out.appendBytes(bytes, 0, length);
  }

  byte[] bytes() {
    return bytes;
  }

  /** A copy of what was written. */
  public byte[] toBytes() {
    return Arrays.copyOf(bytes, length);
  }

  /** How many bytes were written. */
  public int length() {
    return length;
  }

  /** The room it has (what it keeps after a reset). */
  public int capacity() {
    return bytes.length;
  }

  /** Drops what was written after the first {@code length} bytes (a render that gave up). */
  public void truncate(int length) {
    if (length < 0 || length > this.length) {
      throw new IndexOutOfBoundsException(length + " of " + this.length);
    }
    this.length = length;
  }

  private JsonBytes writeByte(int b) {
    if (length == bytes.length) {
      bytes = Arrays.copyOf(bytes, length * 2);
    }
    bytes[length++] = (byte) b;
    return this;
  }

  private void writeBytes(byte[] b) {
    ensureWritable(b.length);
    System.arraycopy(b, 0, bytes, length, b.length);
    length += b.length;
  }

  private void ensureWritable(int n) {
    if (length + n > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(length + n, bytes.length * 2));
    }
  }

  private static boolean value(Object v, JsonBytes out, int depth) {
    if (v == null) {
      out.writeBytes(NULL);
      return true;
    }
    if (v instanceof String s) {
      return string(s, out);
    }
    if (v instanceof Integer i) {
      writeLong(out, i);
      return true;
    }
    if (v instanceof Long l) {
      writeLong(out, l);
      return true;
    }
    if (v instanceof Boolean b) {
      out.writeBytes(b ? TRUE : FALSE);
      return true;
    }
    if (v instanceof Double d) {
      if (!Double.isFinite(d)) {
        return false;
      }
      writeAscii(out, NumberOutput.toString(d, true));
      return true;
    }
    if (v instanceof Float f) {
      if (!Float.isFinite(f)) {
        return false;
      }
      writeAscii(out, NumberOutput.toString(f, true));
      return true;
    }
    if (depth >= MAX_DEPTH) {
      return false;
    }
    if (v instanceof JsonInts ints) {
      ints(ints, out);
      return true;
    }
    if (v instanceof JsonObject o) {
      return object(o.getMap(), out, depth);
    }
    if (v instanceof JsonArray a) {
      return array(a.getList(), out, depth);
    }
    if (v instanceof Map<?, ?> m) {
      return object(m, out, depth);
    }
    if (v instanceof List<?> l) {
      return array(l, out, depth);
    }
    return false;
  }

  private static boolean object(Map<?, ?> map, JsonBytes out, int depth) {
    out.writeByte('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getKey() instanceof String key)) {
        return false;
      }
      if (!first) {
        out.writeByte(',');
      }
      first = false;
      if (!string(key, out)) {
        return false;
      }
      out.writeByte(':');
      if (!value(e.getValue(), out, depth + 1)) {
        return false;
      }
    }
    out.writeByte('}');
    return true;
  }

  private static boolean array(List<?> list, JsonBytes out, int depth) {
    out.writeByte('[');
    for (int i = 0, n = list.size(); i < n; i++) {
      if (i > 0) {
        out.writeByte(',');
      }
      if (!value(list.get(i), out, depth + 1)) {
        return false;
      }
    }
    out.writeByte(']');
    return true;
  }

  /**
   * Token ids: the bytes they were read from where they were kept (a prompt as the client wrote
   * it), else written with one check for room for them all.
   */
  private static void ints(JsonInts ints, JsonBytes out) {
    byte[] json = ints.json();
    if (json != null) {
      out.writeBytes(json);
      return;
    }
    int[] ids = ints.ids();
    out.ensureWritable(2 + 11 * ids.length); // 10 digits and a comma each
    byte[] b = out.bytes;
    int at = out.length;
    b[at++] = '[';
    for (int k = 0; k < ids.length; k++) {
      if (k > 0) {
        b[at++] = ',';
      }
      int v = ids[k];
      if (v < 0) { // never a token id; written as any number
        out.length = at;
        writeLong(out, v);
        out.ensureWritable(1 + 11 * (ids.length - k));
        b = out.bytes;
        at = out.length;
        continue;
      }
      int len = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10_000 ? 4 : v < 100_000 ? 5
          : v < 1_000_000 ? 6 : v < 10_000_000 ? 7 : v < 100_000_000 ? 8
          : v < 1_000_000_000 ? 9 : 10;
      at += len;
      int p = at;
      do {
        b[--p] = (byte) ('0' + v % 10);
        v /= 10;
      } while (v != 0);
    }
    b[at++] = ']';
    out.length = at;
  }

  /** A quoted string with Jackson's escapes; false at a lone surrogate (Jackson refuses it). */
  private static boolean string(String s, JsonBytes out) {
    int n = s.length();
    out.ensureWritable(n + 2);
    byte[] b = out.bytes;
    int at = out.length;
    b[at++] = '"';
    int i = 0;
    for (char c; i < n && (c = s.charAt(i)) >= 0x20 && c < 0x80 && c != '"' && c != '\\'; i++) {
      b[at++] = (byte) c; // plain ASCII, the common case: no escape, room made above
    }
    out.length = at;
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c != '"' && c != '\\') {
          out.writeByte(c);
        } else {
          escape(c, out);
        }
      } else if (c < 0x800) {
        out.writeByte(0xc0 | (c >> 6));
        out.writeByte(0x80 | (c & 0x3f));
      } else if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c) || i + 1 >= n
            || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        int cp = Character.toCodePoint(c, s.charAt(++i));
        out.writeByte(0xf0 | (cp >> 18));
        out.writeByte(0x80 | ((cp >> 12) & 0x3f));
        out.writeByte(0x80 | ((cp >> 6) & 0x3f));
        out.writeByte(0x80 | (cp & 0x3f));
      } else {
        out.writeByte(0xe0 | (c >> 12));
        out.writeByte(0x80 | ((c >> 6) & 0x3f));
        out.writeByte(0x80 | (c & 0x3f));
      }
    }
    out.writeByte('"');
    return true;
  }

  private static void escape(char c, JsonBytes out) {
    out.writeByte('\\');
    switch (c) {
      case '"' -> out.writeByte('"');
      case '\\' -> out.writeByte('\\');
      case '\b' -> out.writeByte('b');
      case '\t' -> out.writeByte('t');
      case '\n' -> out.writeByte('n');
      case '\f' -> out.writeByte('f');
      case '\r' -> out.writeByte('r');
      default -> {
        out.writeByte('u').writeByte('0').writeByte('0');
        out.writeByte(HEX[c >> 4]).writeByte(HEX[c & 0xf]);
      }
    }
  }

  /** {@code v}'s decimal digits (as Long.toString writes them), without a string in between. */
  private static void writeLong(JsonBytes out, long v) {
    if (v == Long.MIN_VALUE) {
      writeAscii(out, Long.toString(v));
      return;
    }
    out.ensureWritable(20);
    if (v < 0) {
      out.bytes[out.length++] = '-';
      v = -v;
    }
    int digits = 1;
    for (long rest = v / 10; rest != 0; rest /= 10) {
      digits++;
    }
    int at = out.length + digits;
    out.length = at;
    do {
      out.bytes[--at] = (byte) ('0' + (int) (v % 10));
      v /= 10;
    } while (v != 0);
  }

  private static void writeAscii(JsonBytes out, String digits) {
    int n = digits.length();
    out.ensureWritable(n);
    for (int i = 0; i < n; i++) {
      out.bytes[out.length++] = (byte) digits.charAt(i);
    }
  }
}
