package dev.tandem.engine.sched;

import dev.tandem.tokenizer.TextTokenizer;
import java.util.Arrays;
import java.util.List;

/**
 * Turns one choice's generated tokens into text deltas. It never emits a broken character (a
 * decode that ends in U+FFFD waits for the next token), holds back any tail that could be the start
 * of a stop string, and cuts the text at the first stop string. Decoding is done over a short
 * window with a few tokens of left context, as tokenizers that strip a leading space need it.
 */
final class OutputStreamer {
  private static final int CONTEXT_TOKENS = 5;
  private static final char REPLACEMENT = '\uFFFD';

  private final TextTokenizer tokenizer;
  private final List<String> stops;
  private int[] ids;
  private int count;
  private int prefixOffset;
  private int readOffset;
  private final StringBuilder text = new StringBuilder();
  private int emitted;
  private boolean stopped;

  OutputStreamer(TextTokenizer tokenizer, int[] prompt, int promptLength, List<String> stops) {
    this.tokenizer = tokenizer;
    this.stops = stops;
    int context = Math.min(CONTEXT_TOKENS, promptLength);
    ids = Arrays.copyOfRange(prompt, promptLength - context, promptLength + 16);
    count = context;
    prefixOffset = 0;
    readOffset = context;
  }

  /** Adds a generated token; returns the text that may be shown now (possibly empty). */
  String push(int token) {
    if (stopped) {
      return "";
    }
    if (count == ids.length) {
      ids = Arrays.copyOf(ids, ids.length * 2);
    }
    ids[count++] = token;
    String prefixText = decode(prefixOffset, readOffset);
    String newText = decode(prefixOffset, count);
    if (newText.length() > prefixText.length()
        && newText.charAt(newText.length() - 1) != REPLACEMENT) {
      text.append(newText, prefixText.length(), newText.length());
      prefixOffset = readOffset;
      readOffset = count;
    }
    return release();
  }

  /** The text still held back, at the end of the choice (nothing after a stop string). */
  String flush() {
    if (stopped) {
      return "";
    }
    if (readOffset < count) {
      String prefixText = decode(prefixOffset, readOffset);
      String newText = decode(prefixOffset, count);
      if (newText.length() > prefixText.length()) {
        text.append(newText, prefixText.length(), newText.length());
      }
      prefixOffset = readOffset = count;
    }
    String beforeStop = release();
    if (stopped) {
      return beforeStop;
    }
    String rest = beforeStop + text.substring(emitted);
    emitted = text.length();
    return rest;
  }

  /** True once a stop string was seen; the text before it has been returned. */
  boolean stopped() {
    return stopped;
  }

  private String release() {
    if (stops.isEmpty()) {
      String out = text.substring(emitted);
      emitted = text.length();
      return out;
    }
    int cut = -1;
    for (String stop : stops) {
      int at = text.indexOf(stop, emitted);
      if (at >= 0 && (cut < 0 || at < cut)) {
        cut = at;
      }
    }
    if (cut >= 0) {
      stopped = true;
      String out = text.substring(emitted, cut);
      emitted = cut;
      return out;
    }
    int hold = heldBackLength();
    String out = text.substring(emitted, text.length() - hold);
    emitted = text.length() - hold;
    return out;
  }

  /** Length of the longest unemitted tail that is a proper prefix of some stop string. */
  private int heldBackLength() {
    int available = text.length() - emitted;
    int best = 0;
    for (String stop : stops) {
      for (int len = Math.min(stop.length() - 1, available); len > best; len--) {
        if (tailEquals(stop, len)) {
          best = len;
          break;
        }
      }
    }
    return best;
  }

  private boolean tailEquals(String stop, int len) {
    int base = text.length() - len;
    for (int i = 0; i < len; i++) {
      if (text.charAt(base + i) != stop.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private String decode(int from, int to) {
    return from >= to ? "" : tokenizer.decode(Arrays.copyOfRange(ids, from, to));
  }
}
