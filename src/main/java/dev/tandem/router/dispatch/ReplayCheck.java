package dev.tandem.router.dispatch;

/**
 * Checks that a replayed choice regenerates exactly what its client already has, before the
 * relay lets anything new through: token by token where the delivered token ids are known (and
 * the replay names its own), and character by character always. A seeded sampled request is
 * only resumable this way; a difference means the engines are not deterministic for it, and the
 * request must end with an error rather than continue text the client never saw the start of.
 */
final class ReplayCheck {

  private final String delivered;
  private final int[] deliveredIds;
  private int chars;
  private int tokens;
  private boolean idsUsable;

  /** @param deliveredIds the delivered tokens' ids, or null when they are unknown */
  ReplayCheck(String delivered, int[] deliveredIds) {
    this.delivered = delivered;
    this.deliveredIds = deliveredIds;
    this.idsUsable = deliveredIds != null;
  }

  /** Whether the whole delivered text has been reproduced. */
  boolean complete() {
    return chars >= delivered.length() && (!idsUsable || tokens >= deliveredIds.length);
  }

  /** Whether the check compared token ids (not only text). */
  boolean byTokens() {
    return idsUsable;
  }

  /**
   * Takes the next delta of the replay (its token ids, null if the engine did not name them).
   *
   * @param ended the replayed choice finished with this delta
   * @return null while everything matches, else what differs
   */
  String next(int[] ids, String text, boolean ended) {
    if (idsUsable) {
      if (ids == null) {
        idsUsable = text.isEmpty(); // from here only the text can be compared
      } else {
        for (int i = 0; i < ids.length && tokens < deliveredIds.length; i++, tokens++) {
          if (ids[i] != deliveredIds[tokens]) {
            return "token " + tokens + " is " + ids[i] + ", the client has " + deliveredIds[tokens];
          }
        }
      }
    }
    int n = Math.min(text.length(), delivered.length() - chars);
    for (int i = 0; i < n; i++) {
      if (text.charAt(i) != delivered.charAt(chars + i)) {
        return "character " + (chars + i) + " differs: the client has \""
            + excerpt(delivered, chars + i) + "\", the replay \"" + excerpt(text, i) + "\"";
      }
    }
    chars += n;
    if (ended && chars < delivered.length()) {
      return "the replay ended after " + chars + " of the " + delivered.length()
          + " characters the client has";
    }
    return null;
  }

  private static String excerpt(String s, int from) {
    return s.substring(from, Math.min(s.length(), from + 12));
  }
}
