package dev.tandem.router.upstream;

import dev.tandem.api.JsonTree;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The fast path of {@link EngineChunk#parse}: a byte scanner for the chunk an engine sends with
 * every token ({@code {"id":..,"choices":[{"index":0,"text":"..","finish_reason":null,
 * "token_ids":[..]}],..}}) and the usage record that ends a stream. It reads exactly that shape,
 * checking every byte it passes as strictly as Jackson does, and gives up ({@link #scan} returns
 * null) at anything else: an error, logprobs, an escaped field name, a number it cannot read as
 * Jackson does, anything malformed. Jackson then parses the chunk, so what is accepted and what
 * an engine's bad chunk is told are Jackson's; this only saves the parser's set-up and symbol
 * table per chunk, which was most of the router's JSON cost per streamed token (BENCHMARKS.md,
 * issue 14). The JSON itself is read by {@link JsonTree}; this class knows the chunk's shape.
 */
final class ChunkScanner extends JsonTree {

  private static final byte[] CHOICES = ascii("choices");
  private static final byte[] USAGE = ascii("usage");
  private static final byte[] ERROR = ascii("error");
  private static final byte[] INDEX = ascii("index");
  private static final byte[] TEXT = ascii("text");
  private static final byte[] FINISH_REASON = ascii("finish_reason");
  private static final byte[] TOKEN_IDS = ascii("token_ids");
  private static final byte[] LOGPROBS = ascii("logprobs");
  private static final byte[] COMPLETION_TOKENS = ascii("completion_tokens");
  private static final byte[] EXTRA = ascii("extra");
  private static final byte[] PREFIX_MATCHED_LENGTH = ascii("prefix_matched_length");
  private static final byte[] CACHED_TOKENS = ascii("cached_tokens");
  private static final byte[] OUTPUT_TOKEN_IDS = ascii("output_token_ids");
  private static final byte[] ROUTING = ascii("routing");
  /** How many names a usage.extra kept as bytes may have (each is checked against the others). */
  private static final int FLAT_NAMES = 32;

  /** The last field name read: its bytes are {@code b[keyAt, keyAt + keyLength)}. */
  private int keyAt;
  private int keyLength;
  /**
   * What {@link ChunkShape} learns from a chunk: how often each of these fields was met, and where
   * the last text's and token ids' contents lie (inside the quotes and brackets; -1: not met as a
   * string or an array).
   */
  private int choicesFields;
  private int choiceCount;
  private int textFields;
  private int idsFields;
  private int textFrom = -1;
  private int textTo;
  private int idsFrom = -1;
  private int idsTo;
  private boolean usage;
  /** What the chunk's usage record holds, as {@link #usage()} read it. */
  private Integer completionTokens;
  private UsageExtra usageExtra;

  ChunkScanner(byte[] bytes, int offset, int end) {
    super(bytes, offset, end);
  }

  /** The chunk in {@code bytes[offset, offset + length)}, or null where Jackson must read it. */
  static EngineChunk scan(byte[] bytes, int offset, int length) {
    return scan(bytes, offset, length, null);
  }

  /** {@link #scan}, and {@code shape} (when not null) learns the chunk's shape from it. */
  static EngineChunk scan(byte[] bytes, int offset, int length, ChunkShape shape) {
    ChunkScanner s = new ChunkScanner(bytes, offset, offset + length);
    EngineChunk chunk;
    try {
      chunk = s.chunk();
    } catch (GiveUp e) {
      return null;
    }
    if (shape != null && chunk != null) {
      if (s.choicesFields == 1 && s.choiceCount == 1 && s.textFields == 1 && s.textFrom >= 0
          && s.idsFields <= 1 && !s.usage) {
        shape.learn(bytes, offset, length, chunk.choices().get(0), s.textFrom, s.textTo,
            s.idsFrom, s.idsTo);
      } else {
        shape.forget();
      }
    }
    return chunk;
  }

  /**
   * The string value whose opening quote is at {@code at}, decoded, and then {@link #at()} is past
   * it; null where the scan gives up.
   */
  String stringAt(int at) {
    i = at;
    try {
      return string();
    } catch (GiveUp e) {
      return null;
    }
  }

  /**
   * The token id array whose opening bracket is at {@code at}, and then {@link #at()} is past it;
   * null where the scan gives up.
   */
  int[] idsAt(int at) {
    i = at;
    try {
      return ints();
    } catch (GiveUp e) {
      return null;
    }
  }

  int at() {
    return i;
  }

  private EngineChunk chunk() {
    List<EngineChunk.Choice> choices = List.of();
    expect('{');
    if (!emptyContainer('}')) {
      do {
        key();
        if (keyIs(CHOICES)) {
          choicesFields++;
          choices = nullLiteral() ? List.of() : choices();
        } else if (keyIs(USAGE)) {
          if (!nullLiteral()) { // a null usage leaves an earlier one, as Jackson's reading does
            usage = true;
            usage();
          }
        } else if (keyIs(ERROR)) {
          if (!nullLiteral()) {
            return null; // an error event: Jackson keeps its body (no exception thrown)
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
    return new EngineChunk(choices, completionTokens, usageExtra, null);
  }

  /**
   * The usage object at {@code i}, keeping what {@link EngineChunk#of} keeps of it: the value of
   * its last {@code completion_tokens} if a number, of its last {@code extra} if an object. The
   * other members are checked and skipped, not built into a JsonObject.
   */
  private void usage() {
    completionTokens = null;
    usageExtra = null;
    expect('{');
    if (!emptyContainer('}')) {
      do {
        key();
        if (keyIs(COMPLETION_TOKENS)) {
          completionTokens = value(1, false) instanceof Number n ? n.intValue() : null;
        } else if (keyIs(EXTRA)) {
          usageExtra = extra();
        } else {
          skipValue(1);
        }
      } while (next('}'));
    }
  }

  private List<EngineChunk.Choice> choices() {
    expect('[');
    List<EngineChunk.Choice> out = new ArrayList<>(1);
    if (!emptyContainer(']')) {
      do {
        out.add(choice());
        choiceCount++;
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
          textFields++;
          textFrom = -1;
          if (!nullLiteral()) {
            textFrom = i + 1;
            text = string();
            textTo = i - 1;
          } else {
            text = "";
          }
        } else if (keyIs(FINISH_REASON)) {
          finish = nullLiteral() ? null : string();
        } else if (keyIs(TOKEN_IDS)) {
          idsFields++;
          idsFrom = -1;
          ids = null;
          if (!nullLiteral()) {
            idsFrom = i + 1;
            ids = ints();
            idsTo = i - 1;
          }
        } else if (keyIs(LOGPROBS)) {
          requireNull();
        } else {
          skipValue(0);
        }
      } while (next('}'));
    }
    return new EngineChunk.Choice(index, text, finish, ids, null);
  }

  /**
   * The usage's {@code extra} at {@code i}: a flat record as its compact bytes, any other object
   * as its JsonObject (both as {@link UsageExtra} describes), null where it is not an object.
   */
  private UsageExtra extra() {
    ws();
    int from = i;
    if (i < end && b[i] == '{') {
      UsageExtra flat = flatExtra();
      if (flat != null) {
        return flat;
      }
      i = from;
    }
    return value(1, false) instanceof JsonObject x ? UsageExtra.of(x) : null;
  }

  /**
   * The object at {@code i} as compact bytes, and then {@code i} is past it, where it is a flat
   * record: names without escapes, each once, values that are strings, numbers, booleans or null,
   * and neither {@code output_token_ids} nor {@code routing} among the names. Else null, with
   * {@code i} anywhere in it (the caller reads it again). Every value is checked as {@link #value}
   * checks it; only the two cached-prefix counts are read.
   */
  private UsageExtra flatExtra() {
    int from = i;
    expect('{');
    Number prefixMatched = null;
    Number cached = null;
    int[] names = null;
    int count = 0;
    if (!emptyContainer('}')) {
      do {
        expect('"');
        int j = plainRun(i);
        if (j >= end || b[j] != '"' || count == FLAT_NAMES) {
          return null;
        }
        keyAt = i;
        keyLength = j - i;
        i = j + 1;
        expect(':');
        if (keyIs(OUTPUT_TOKEN_IDS) || keyIs(ROUTING) || named(names, count)) {
          return null;
        }
        if (names == null) {
          names = new int[8]; // room for 4 names, then 8, 16, 32
        } else if (names.length == 2 * count) {
          names = Arrays.copyOf(names, 4 * count);
        }
        names[2 * count] = keyAt;
        names[2 * count + 1] = keyLength;
        count++;
        ws();
        if (i >= end) {
          throw GIVE_UP;
        }
        switch (b[i]) {
          case '{', '[' -> {
            return null;
          }
          case '"' -> skipString();
          case 't' -> literal("true");
          case 'f' -> literal("false");
          case 'n' -> literal("null");
          default -> {
            if (keyIs(PREFIX_MATCHED_LENGTH)) {
              prefixMatched = number();
            } else if (keyIs(CACHED_TOKENS)) {
              cached = number();
            } else if (!flatNumber()) {
              return null;
            }
          }
        }
      } while (next('}'));
    }
    return UsageExtra.ofBytes(compact(b, from, i), prefixMatched, cached);
  }

  /** Whether an earlier name of {@code names[0, 2 * count)} is the last one read. */
  private boolean named(int[] names, int count) {
    for (int n = 0; n < count; n++) {
      int at = names[2 * n];
      if (names[2 * n + 1] == keyLength
          && Arrays.equals(b, at, at + keyLength, b, keyAt, keyAt + keyLength)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A number checked and skipped; false where {@link #number} would give up on it (an integer of
   * more than 18 digits), so the record is read again.
   */
  private boolean flatNumber() {
    int from = i;
    skipNumber();
    for (int k = from; k < i; k++) {
      if (b[k] == '.' || b[k] == 'e' || b[k] == 'E') {
        return true;
      }
    }
    return i - from <= (b[from] == '-' ? 19 : 18);
  }

  /** {@code b[from, to)} without the white space between tokens (strings kept as they are). */
  private static byte[] compact(byte[] b, int from, int to) {
    byte[] out = new byte[to - from];
    int n = 0;
    boolean inString = false;
    for (int k = from; k < to; k++) {
      byte c = b[k];
      if (inString) {
        out[n++] = c;
        if (c == '\\') {
          out[n++] = b[++k];
        } else if (c == '"') {
          inString = false;
        }
      } else if (!isWs(c)) {
        out[n++] = c;
        inString = c == '"';
      }
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
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
        || (i < end && (b[i] == '.' || b[i] == 'e' || b[i] == 'E'
            || (b[i] >= '0' && b[i] <= '9')))) {
      throw GIVE_UP;
    }
    return v;
  }

  /** A field name (plain ASCII without escapes), then its colon. */
  private void key() {
    expect('"');
    int j = plainRun(i);
    if (j >= end || b[j] != '"') {
      throw GIVE_UP; // an escape, a multi-byte character, a control character, the end
    }
    keyAt = i;
    keyLength = j - i;
    i = j + 1;
    expect(':');
  }

  /** Whether the last field name is {@code name} (a short ASCII name: compared byte by byte). */
  private boolean keyIs(byte[] name) {
    if (keyLength != name.length) {
      return false;
    }
    for (int k = 0; k < name.length; k++) {
      if (b[keyAt + k] != name[k]) {
        return false;
      }
    }
    return true;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
