package dev.tandem.api;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reading JSON straight from bytes, as strictly as Jackson reads it (the router's engine chunks,
 * {@code dev.tandem.router.upstream.ChunkScanner}; request bodies, {@link FastJson}): white
 * space, punctuation, strings (escapes, well-formed UTF-8 only), numbers, literals, values
 * skipped ({@link JsonTree} builds them). At anything Jackson would refuse or might read
 * differently (beyond its read constraints, a number too long to read as it does) it throws
 * {@link #GIVE_UP}, and the caller leaves the input to Jackson.
 */
public abstract class JsonScanner {

  /** Thrown to give up; carries no stack trace. */
  protected static final class GiveUp extends RuntimeException {
    GiveUp() {
      super(null, null, false, false);
    }
  }

  protected static final GiveUp GIVE_UP = new GiveUp();
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  protected static final int MAX_DEPTH = 32;
  /** Beyond these Jackson's read constraints may refuse what this would read. */
  private static final int MAX_NUMBER = 500;
  private static final int MAX_STRING = 1 << 20;

  protected final byte[] b;
  protected final int end;
  protected int i;

  protected JsonScanner(byte[] bytes, int offset, int end) {
    this.b = bytes;
    this.i = offset;
    this.end = end;
  }

  /** After white space: consumes {@code null} when it is there. */
  protected boolean nullLiteral() {
    ws();
    if (i + 4 <= end && b[i] == 'n' && b[i + 1] == 'u' && b[i + 2] == 'l' && b[i + 3] == 'l') {
      i += 4;
      return true;
    }
    return false;
  }

  protected void requireNull() {
    if (!nullLiteral()) {
      throw GIVE_UP;
    }
  }

  /** A string value at {@code i}, decoded. */
  protected String string() {
    expect('"');
    StringBuilder escaped = null; // only once there is an escape
    int run = i; // the bytes since the last escape, decoded at once
    boolean ascii = true;
    while (true) {
      if (i >= end) {
        throw GIVE_UP;
      }
      byte c = b[i];
      if (c == '"') {
        String tail = decode(run, i, ascii);
        i++;
        String s = escaped == null ? tail : escaped.append(tail).toString();
        if (s.length() > MAX_STRING) {
          throw GIVE_UP;
        }
        return s;
      }
      if (c == '\\') {
        if (escaped == null) {
          escaped = new StringBuilder(i - run + 16);
        }
        escaped.append(decode(run, i, ascii)).append(escape());
        run = i;
        ascii = true;
      } else if (c < 0) {
        utf8Character(); // checked here, decoded with its run
        ascii = false;
      } else if (c < 0x20) {
        throw GIVE_UP;
      } else {
        i = plainRun(i + 1);
      }
    }
  }

  /**
   * An object's key at {@code i}, decoded as {@link #string} decodes it; a plain ASCII one (no
   * escape) that {@link JsonKeys} lists comes back as its one shared String.
   */
  protected String objectKey() {
    if (i < end && b[i] == '"') {
      int from = i + 1;
      int j = plainRun(from);
      if (j < end && b[j] == '"' && j - from <= MAX_STRING) {
        String known = JsonKeys.known(b, from, j);
        i = j + 1;
        return known != null ? known : new String(b, from, j - from, StandardCharsets.ISO_8859_1);
      }
    }
    return string();
  }

  /** Well-formed UTF-8 (checked while scanning) as a string; ASCII the cheap way. */
  private String decode(int from, int to, boolean ascii) {
    return new String(b, from, to - from,
        ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
  }

  /** The escape at {@code i} (a backslash): its character. */
  protected char escape() {
    if (i + 1 >= end) {
      throw GIVE_UP;
    }
    byte e = b[i + 1];
    i += 2;
    switch (e) {
      case '"': return '"';
      case '\\': return '\\';
      case '/': return '/';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      case 'u': {
        if (i + 4 > end) {
          throw GIVE_UP;
        }
        int v = 0;
        for (int k = 0; k < 4; k++) {
          int d = Character.digit(b[i++], 16);
          if (d < 0) {
            throw GIVE_UP;
          }
          v = v * 16 + d;
        }
        return (char) v;
      }
      default:
        throw GIVE_UP;
    }
  }

  /** One well-formed UTF-8 character of 2 to 4 bytes (no overlong form, no surrogate). */
  protected void utf8Character() {
    int lead = b[i] & 0xff;
    int n;
    int min = 0x80;
    int max = 0xbf; // the allowed range of the second byte
    if (lead >= 0xc2 && lead <= 0xdf) {
      n = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      n = 3;
      min = lead == 0xe0 ? 0xa0 : 0x80;
      max = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      n = 4;
      min = lead == 0xf0 ? 0x90 : 0x80;
      max = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
      throw GIVE_UP;
    }
    if (i + n > end) {
      throw GIVE_UP;
    }
    for (int k = 1; k < n; k++) {
      int c = b[i + k] & 0xff;
      if (c < (k == 1 ? min : 0x80) || c > (k == 1 ? max : 0xbf)) {
        throw GIVE_UP;
      }
    }
    i += n;
  }

  /** Any JSON value, checked but not kept. */
  protected void skipValue(int depth) {
    ws();
    if (i >= end || depth > MAX_DEPTH) {
      throw GIVE_UP;
    }
    switch (b[i]) {
      case '"' -> skipString();
      case '{' -> {
        i++;
        if (!emptyContainer('}')) {
          do {
            ws();
            skipString();
            ws();
            expect(':');
            skipValue(depth + 1);
          } while (next('}'));
        }
      }
      case '[' -> {
        i++;
        if (!emptyContainer(']')) {
          do {
            skipValue(depth + 1);
          } while (next(']'));
        }
      }
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> skipNumber();
    }
  }

  protected void skipString() {
    expect('"');
    int from = i;
    while (true) {
      int j = plainRun(i);
      i = j;
      if (j >= end) {
        throw GIVE_UP;
      }
      byte c = b[j];
      if (c == '"') {
        if (j - from > MAX_STRING) {
          throw GIVE_UP;
        }
        i = j + 1;
        return;
      }
      if (c == '\\') {
        escape();
      } else if (c < 0) {
        utf8Character();
      } else {
        throw GIVE_UP; // a control character
      }
    }
  }

  /**
   * Where the run of printable ASCII other than quote and backslash from {@code j} ends: eight
   * bytes per step while they are all plain (a byte with its high bit set, one below 0x20 and a
   * zero byte of the word XOR '"' or '\\' are each flagged in its top bit; the lowest flag is
   * exact, as borrows only run upwards), then byte by byte.
   */
  protected int plainRun(int j) {
    for (; j + 8 <= end; j += 8) {
      long w = (long) LONGS.get(b, j);
      long quote = w ^ 0x2222222222222222L;
      long backslash = w ^ 0x5c5c5c5c5c5c5c5cL;
      long found = (w | ((w - 0x2020202020202020L) & ~w)
          | ((quote - 0x0101010101010101L) & ~quote)
          | ((backslash - 0x0101010101010101L) & ~backslash)) & 0x8080808080808080L;
      if (found != 0) {
        return j + (Long.numberOfTrailingZeros(found) >>> 3);
      }
    }
    while (j < end) {
      byte c = b[j];
      if (c < 0x20 || c == '"' || c == '\\') { // negative too: a byte of a multi-byte character
        return j;
      }
      j++;
    }
    return j;
  }

  protected void literal(String word) {
    if (i + word.length() > end) {
      throw GIVE_UP;
    }
    for (int k = 0; k < word.length(); k++) {
      if (b[i + k] != word.charAt(k)) {
        throw GIVE_UP;
      }
    }
    i += word.length();
  }

  /** {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?} */
  protected void skipNumber() {
    int from = i;
    if (i < end && b[i] == '-') {
      i++;
    }
    if (i < end && b[i] == '0') {
      i++;
    } else if (digits() == 0) {
      throw GIVE_UP;
    }
    if (i < end && b[i] == '.') {
      i++;
      if (digits() == 0) {
        throw GIVE_UP;
      }
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < end && (b[i] == '+' || b[i] == '-')) {
        i++;
      }
      if (digits() == 0) {
        throw GIVE_UP;
      }
    }
    if (i - from > MAX_NUMBER) {
      throw GIVE_UP;
    }
  }

  protected int digits() {
    int from = i;
    int j = from;
    while (j < end && b[j] >= '0' && b[j] <= '9') {
      j++;
    }
    i = j;
    return j - from;
  }

  /** After an opening bracket: consumes {@code close} if the container is empty. */
  protected boolean emptyContainer(char close) {
    ws();
    if (i < end && b[i] == close) {
      i++;
      return true;
    }
    return false;
  }

  /** After a member: true at a comma (another follows), false at {@code close}. */
  protected boolean next(char close) {
    ws();
    if (i < end) {
      byte c = b[i++];
      if (c == ',') {
        return true;
      }
      if (c == close) {
        return false;
      }
    }
    throw GIVE_UP;
  }

  protected void expect(char c) {
    ws();
    if (i >= end || b[i] != c) {
      throw GIVE_UP;
    }
    i++;
  }

  protected void ws() {
    int j = i; // a local, not the field, in the loops of this class: the JIT keeps it in a register
    while (j < end && isWs(b[j])) {
      j++;
    }
    i = j;
  }

  protected static boolean isWs(byte c) {
    return c <= ' ' && (c == ' ' || c == '\n' || c == '\r' || c == '\t'); // mostly one test
  }
}
