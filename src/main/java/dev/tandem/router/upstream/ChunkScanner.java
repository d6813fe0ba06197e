package dev.tandem.router.upstream;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The fast path of {@link EngineChunk#parse}: a byte scanner for the chunk an engine sends with
 * every token ({@code {"id":..,"choices":[{"index":0,"text":"..","finish_reason":null,
 * "token_ids":[..]}],..}}). It reads exactly that shape, checking every byte it passes as strictly
 * as Jackson does, and gives up ({@link #scan} returns null) at anything else: a usage record, an
 * error, logprobs, an escaped field name, a number it does not need to read exactly, anything
 * malformed. Jackson then parses the chunk, so what is accepted and what an engine's bad chunk
 * is told are Jackson's; this only saves the parser's set-up and symbol table per chunk, which was
 * most of the router's JSON cost per streamed token (BENCHMARKS.md, issue 14).
 */
final class ChunkScanner {

  /** Thrown to give up; carries no stack trace. */
  private static final class GiveUp extends RuntimeException {
    GiveUp() {
      super(null, null, false, false);
    }
  }

  private static final GiveUp GIVE_UP = new GiveUp();
  private static final int MAX_DEPTH = 32;
  private static final byte[] CHOICES = ascii("choices");
  private static final byte[] USAGE = ascii("usage");
  private static final byte[] ERROR = ascii("error");
  private static final byte[] INDEX = ascii("index");
  private static final byte[] TEXT = ascii("text");
  private static final byte[] FINISH_REASON = ascii("finish_reason");
  private static final byte[] TOKEN_IDS = ascii("token_ids");
  private static final byte[] LOGPROBS = ascii("logprobs");

  private final byte[] b;
  private final int end;
  private int i;
  /** The last field name read: its bytes are {@code b[keyAt, keyAt + keyLength)}. */
  private int keyAt;
  private int keyLength;

  private ChunkScanner(byte[] bytes, int offset, int end) {
    this.b = bytes;
    this.i = offset;
    this.end = end;
  }

  /** The chunk in {@code bytes[offset, offset + length)}, or null where Jackson must read it. */
  static EngineChunk scan(byte[] bytes, int offset, int length) {
    try {
      return new ChunkScanner(bytes, offset, offset + length).chunk();
    } catch (GiveUp e) {
      return null;
    }
  }

  private EngineChunk chunk() {
    List<EngineChunk.Choice> choices = List.of();
    expect('{');
    if (!emptyContainer('}')) {
      do {
        key();
        if (keyIs(CHOICES)) {
          choices = nullLiteral() ? List.of() : choices();
        } else if (keyIs(USAGE) || keyIs(ERROR)) {
          if (!nullLiteral()) {
            return null; // a stream's usage record (once per request: no exception thrown)
          }
        } else {
          skipValue(0);
        }
      } while (next('}'));
    }
    ws();
    if (i != end) {
      throw GIVE_UP;
    }
    return new EngineChunk(choices, null, null, null);
  }

  private List<EngineChunk.Choice> choices() {
    expect('[');
    List<EngineChunk.Choice> out = new ArrayList<>(1);
    if (!emptyContainer(']')) {
      do {
        out.add(choice());
      } while (next(']'));
    }
    return out;
  }

  private EngineChunk.Choice choice() {
    expect('{');
    int index = 0;
    String text = "";
    String finish = null;
    int[] ids = null;
    if (!emptyContainer('}')) {
      do {
        key();
        if (keyIs(INDEX)) {
          ws();
          index = nonNegativeInt();
        } else if (keyIs(TEXT)) {
          text = nullLiteral() ? "" : string();
        } else if (keyIs(FINISH_REASON)) {
          finish = nullLiteral() ? null : string();
        } else if (keyIs(TOKEN_IDS)) {
          ids = nullLiteral() ? null : ints();
        } else if (keyIs(LOGPROBS)) {
          requireNull();
        } else {
          skipValue(0);
        }
      } while (next('}'));
    }
    return new EngineChunk.Choice(index, text, finish, ids, null);
  }

  private int[] ints() {
    expect('[');
    int[] out = new int[8];
    int n = 0;
    if (!emptyContainer(']')) {
      do {
        ws();
        if (n == out.length) {
          out = Arrays.copyOf(out, n * 2);
        }
        out[n++] = nonNegativeInt();
      } while (next(']'));
    }
    return Arrays.copyOf(out, n);
  }

  /** Up to 9 digits, no sign, no leading zero, not followed by a fraction or an exponent. */
  private int nonNegativeInt() {
    int from = i;
    int v = 0;
    while (i < end && b[i] >= '0' && b[i] <= '9' && i - from < 9) {
      v = v * 10 + (b[i++] - '0');
    }
    int digits = i - from;
    if (digits == 0 || (digits > 1 && b[from] == '0')
        || (i < end && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || (b[i] >= '0' && b[i] <= '9')))) {
      throw GIVE_UP;
    }
    return v;
  }

  /** A field name (plain ASCII without escapes), then its colon. */
  private void key() {
    ws();
    expect('"');
    keyAt = i;
    while (i < end && b[i] != '"') {
      byte c = b[i];
      if (c < 0x20 || c == '\\') { // negative too: a byte of a multi-byte character
        throw GIVE_UP;
      }
      i++;
    }
    keyLength = i - keyAt;
    expect('"');
    ws();
    expect(':');
  }

  private boolean keyIs(byte[] name) {
    return Arrays.equals(b, keyAt, keyAt + keyLength, name, 0, name.length);
  }

  /** After white space: consumes {@code null} when it is there. */
  private boolean nullLiteral() {
    ws();
    if (i + 4 <= end && b[i] == 'n' && b[i + 1] == 'u' && b[i + 2] == 'l' && b[i + 3] == 'l') {
      i += 4;
      return true;
    }
    return false;
  }

  private void requireNull() {
    if (!nullLiteral()) {
      throw GIVE_UP;
    }
  }

  /** A string value at {@code i}, decoded. */
  private String string() {
    expect('"');
    int from = i;
    while (i < end) {
      byte c = b[i];
      if (c == '"') {
        return new String(b, from, i++ - from, StandardCharsets.ISO_8859_1); // all ASCII
      }
      if (c < 0x20 || c == '\\') {
        break;
      }
      i++;
    }
    // escapes or non-ASCII: decode the rest piece by piece
    StringBuilder out = new StringBuilder(i - from + 16).append(new String(b, from, i - from,
        StandardCharsets.ISO_8859_1));
    while (true) {
      if (i >= end) {
        throw GIVE_UP;
      }
      byte c = b[i];
      if (c == '"') {
        i++;
        return out.toString();
      }
      if (c == '\\') {
        out.append(escape());
      } else if (c < 0) {
        int at = i;
        utf8Character();
        out.append(new String(b, at, i - at, StandardCharsets.UTF_8));
      } else if (c < 0x20) {
        throw GIVE_UP;
      } else {
        out.append((char) c);
        i++;
      }
    }
  }

  /** The escape at {@code i} (a backslash): its character. */
  private char escape() {
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
  private void utf8Character() {
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
  private void skipValue(int depth) {
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

  private void skipString() {
    expect('"');
    while (true) {
      if (i >= end) {
        throw GIVE_UP;
      }
      byte c = b[i];
      if (c == '"') {
        i++;
        return;
      }
      if (c == '\\') {
        escape();
      } else if (c < 0) {
        utf8Character();
      } else if (c < 0x20) {
        throw GIVE_UP;
      } else {
        i++;
      }
    }
  }

  private void literal(String word) {
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
  private void skipNumber() {
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
  }

  private int digits() {
    int from = i;
    while (i < end && b[i] >= '0' && b[i] <= '9') {
      i++;
    }
    return i - from;
  }

  /** After an opening bracket: consumes {@code close} if the container is empty. */
  private boolean emptyContainer(char close) {
    ws();
    if (i < end && b[i] == close) {
      i++;
      return true;
    }
    return false;
  }

  /** After a member: true at a comma (another follows), false at {@code close}. */
  private boolean next(char close) {
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

  private void expect(char c) {
    ws();
    if (i >= end || b[i] != c) {
      throw GIVE_UP;
    }
    i++;
  }

  private void ws() {
    while (i < end) {
      byte c = b[i];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      i++;
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
