package dev.tandem.router.api;

import dev.tandem.tokenizer.TextTokenizer;
import java.util.Arrays;

/** How many generated tokens a client received, by decoding them as the engine's streamer does. */
final class TokenMatch {

  /** Engines hold back at most a few tokens (a broken character, a stop-string prefix). */
  static final int MAX_HELD = 8;

  private TokenMatch() {}

  /**
   * The largest k such that {@code ids[0, k)}, decoded after the prompt tail (decoding context:
   * some tokenizers drop a leading space at the start of a text), give exactly {@code text}; -1
   * if none of the last {@value #MAX_HELD} cut points does. Blocking: call off the event loop.
   */
  static int deliveredCount(TextTokenizer tokenizer, int[] promptTail, int[] ids, String text) {
    String base = tokenizer.decode(promptTail);
    for (int k = ids.length; k >= Math.max(0, ids.length - MAX_HELD); k--) {
      int[] seq = Arrays.copyOf(promptTail, promptTail.length + k);
      System.arraycopy(ids, 0, seq, promptTail.length, k);
      String all = tokenizer.decode(seq);
      if (all.startsWith(base) && all.length() - base.length() == text.length()
          && all.endsWith(text)) {
        return k;
      }
    }
    return -1;
  }
}
