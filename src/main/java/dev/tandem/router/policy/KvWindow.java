package dev.tandem.router.policy;

/**
 * The split of a prompt between prefill engine P and decode engine D, as MLC computes it from
 * {@code pd_balance_factor} (reference §4.6 step 2), normalised here so that no engine ever sees a
 * window its fatal checks would reject (§6 items 11 and 13).
 *
 * <p>P computes the KV of {@code [0, end)} and ships {@code [prefixMatched, end)} to D; D prefills
 * {@code [end, promptLength)} itself, always at least the last prompt token.
 *
 * @param promptLength number of prompt tokens (at least 1)
 * @param end normalised window end, {@code 0 <= end < promptLength}
 */
public record KvWindow(int promptLength, int end) {

  public KvWindow {
    if (promptLength < 1) {
      throw new IllegalArgumentException("prompt must have at least one token, got " + promptLength);
    }
    if (end < 0 || end >= promptLength) {
      throw new IllegalArgumentException(
          "window end " + end + " outside [0, " + promptLength + ") for the prompt");
    }
  }

  /**
   * MLC's rule: {@code end = -1} (all but the last token) when the factor is 0, else
   * {@code (int) ((1 - f) * len)}; the result is normalised ({@code -1 -> len - 1}) and clamped
   * into {@code [0, len - 1]}, since D must always compute the last token itself. The factor is
   * not checked again here: {@code RouterOptions.PD_BALANCE_FACTOR} holds only values in
   * {@code [0, 1)}, and the clamp keeps this record's invariant for any factor anyway.
   */
  public static KvWindow of(int promptLength, double pdBalanceFactor) {
    int raw = pdBalanceFactor == 0 ? -1 : (int) ((1 - pdBalanceFactor) * promptLength);
    int normalised = raw < 0 ? promptLength + raw : raw;
    return new KvWindow(promptLength, Math.max(0, Math.min(normalised, promptLength - 1)));
  }

  /**
   * Whether P must send anything after D reported {@code prefixMatched} cached tokens; when D's
   * prefix cache already covers the window, P is not contacted at all (as MLC).
   */
  public boolean needsRemoteSend(int prefixMatched) {
    return prefixMatched < end;
  }

  /** D's answer to prep_recv is consistent with this window: {@code 0 <= matched <= end}. */
  public boolean acceptsPrefixMatch(int prefixMatched) {
    return prefixMatched >= 0 && prefixMatched <= end;
  }
}
