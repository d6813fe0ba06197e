package dev.tandem.router.policy;

import java.util.Locale;

/**
 * How much of one request's prompt the prefill engine P computes, chosen per request.
 *
 * <ul>
 *   <li>{@code static} (MLC's behaviour): always disaggregate with the configured
 *       {@code pd_balance_factor};
 *   <li>{@code adaptive}: prefill on P first, overflow to D. <b>Decode-only</b> (D prefills the
 *       prompt itself, no P, no KV hop) when the part D does not have cached is short ({@code
 *       shortPromptTokens}); <b>full</b> disaggregation while P is not busy; beyond that
 *       decode-only when D has fewer requests waiting than P, else a
 *       <b>partial</b> split whose balance factor (the share of the uncached prompt D computes)
 *       follows the queues, {@code f = qP / (qP + qD + 1)} capped at {@code maxBalanceFactor}, so
 *       the side with the longer queue gets the smaller share.
 * </ul>
 *
 * P is busy when the prompts already sent to it plus this one would take it longer than {@code
 * prefillWaitMillis} ({@link PrefillBacklog}: tokens over its measured rate), so the TTFT a
 * request pays at P stays bounded in time whatever the prompts' lengths; until P's rate is
 * measured, when its queue reaches {@code prefillBusy} requests. P's queue is its {@link
 * EngineSnapshot#score()} (a prefill engine runs nothing but prefills); D's is the requests it
 * has not admitted yet ({@code waiting} of its load report), since its running ones are mostly
 * decoding. Pure logic, no I/O.
 */
public final class PdSplitPolicy {

  public static final int DEFAULT_SHORT_PROMPT_TOKENS = 256;
  public static final int DEFAULT_PREFILL_BUSY = 4;
  public static final int DEFAULT_PREFILL_WAIT_MILLIS = 1500;
  public static final double DEFAULT_MAX_BALANCE_FACTOR = 0.9;

  public enum Mode {
    STATIC("static"), ADAPTIVE("adaptive");

    private final String wireName;

    Mode(String wireName) {
      this.wireName = wireName;
    }

    /** The mode whose wire name is {@code s}, in any case. */
    public static Mode parse(String s) {
      String name = s.toLowerCase(Locale.ROOT);
      for (Mode m : values()) {
        if (m.wireName.equals(name)) {
          return m;
        }
      }
      throw new IllegalArgumentException("pd policy must be static or adaptive, not '" + s + "'");
    }

    /** The name on the wire and the command line (each disaggregated routing record holds it). */
    public String wireName() {
      return wireName;
    }
  }

  /** What to do with one request. */
  public enum Kind {
    DECODE_ONLY("decode-only"), FULL("full"), PARTIAL("partial");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * @param balanceFactor MLC's {@code pd_balance_factor} for the window (0 for decode-only)
   * @param why one line for the debug usage
   */
  public record Decision(Kind kind, double balanceFactor, String why) {}

  public record Options(Mode mode, double staticBalanceFactor, int shortPromptTokens,
      int prefillBusy, int prefillWaitMillis, double maxBalanceFactor) {
    public Options {
      if (!(staticBalanceFactor >= 0 && staticBalanceFactor < 1)
          || !(maxBalanceFactor >= 0 && maxBalanceFactor < 1)) {
        throw new IllegalArgumentException("balance factors must be in [0, 1)");
      }
      if (shortPromptTokens < 0 || prefillBusy < 1 || prefillWaitMillis < 1) {
        throw new IllegalArgumentException(
            "shortPromptTokens must be >= 0, prefillBusy and prefillWaitMillis >= 1");
      }
    }

    public static Options of(Mode mode, double staticBalanceFactor) {
      return new Options(mode, staticBalanceFactor, DEFAULT_SHORT_PROMPT_TOKENS,
          DEFAULT_PREFILL_BUSY, DEFAULT_PREFILL_WAIT_MILLIS, DEFAULT_MAX_BALANCE_FACTOR);
    }
  }

  private final Options options;

  public PdSplitPolicy(Options options) {
    this.options = options;
  }

  public Options options() {
    return options;
  }

  /**
   * @param promptLength prompt tokens
   * @param decodeCached tokens the router expects D to have cached
   * @param prefillQueue P's queue, or -1 when no prefill engine is ready
   * @param prefillWaitMillis how long P would take for what it has and this request's uncached
   *     tokens ({@link PrefillBacklog#waitMillis}), NaN while unknown
   * @param decodeQueue D's waiting requests (before this request)
   */
  public Decision decide(int promptLength, int decodeCached, long prefillQueue,
      double prefillWaitMillis, long decodeQueue) {
    if (options.mode() == Mode.STATIC) {
      return prefillQueue < 0
          ? new Decision(Kind.DECODE_ONLY, 0, "no prefill engine ready")
          : new Decision(options.staticBalanceFactor() == 0 ? Kind.FULL : Kind.PARTIAL,
              options.staticBalanceFactor(), "static pd_balance_factor");
    }
    int uncached = Math.max(0, promptLength - decodeCached);
    if (prefillQueue < 0) {
      return new Decision(Kind.DECODE_ONLY, 0, "no prefill engine ready");
    }
    if (uncached <= options.shortPromptTokens()) {
      String what = decodeCached > 0 ? "D has " + decodeCached + " of " + promptLength
          + " tokens cached, " + uncached + " left" : "short prompt (" + promptLength + " tokens)";
      return new Decision(Kind.DECODE_ONLY, 0, what);
    }
    boolean timed = !Double.isNaN(prefillWaitMillis);
    if (timed ? prefillWaitMillis <= options.prefillWaitMillis()
        : prefillQueue < options.prefillBusy()) {
      return new Decision(Kind.FULL, 0, timed
          ? "prefill engine done in " + whole(prefillWaitMillis) + " ms, within "
              + options.prefillWaitMillis()
          : "prefill queue " + prefillQueue + " below " + options.prefillBusy());
    }
    String busy = timed ? "prefill engine needs " + whole(prefillWaitMillis) + " ms (> "
        + options.prefillWaitMillis() + ")" : "prefill queue " + prefillQueue;
    if (decodeQueue < prefillQueue) {
      return new Decision(Kind.DECODE_ONLY, 0, busy + ", decode engine waiting " + decodeQueue);
    }
    // both sides have work queued: split the uncached part so both finish about together
    double f = Math.min(options.maxBalanceFactor(),
        prefillQueue / (double) (prefillQueue + decodeQueue + 1));
    // D computes f of the uncached part; MLC's factor counts the whole prompt
    double share = Math.min(options.maxBalanceFactor(), (f * uncached) / promptLength);
    return new Decision(Kind.PARTIAL, share, busy + "; queues P " + prefillQueue + ", D "
        + decodeQueue + ": D computes " + whole(f * 100) + "% of the " + uncached
        + " uncached tokens");
  }

  /**
   * {@code x} rounded half up to a whole number, as {@code %.0f} writes it. The why of every
   * adaptive decision is built per request: a partial split's by String.format took 1.3 us, by
   * concatenation 0.03-0.1 us.
   */
  static String whole(double x) {
    return x >= 0 && x < 1e15 ? Long.toString(Math.round(x))
        : String.format(Locale.ROOT, "%.0f", x);
  }
}
