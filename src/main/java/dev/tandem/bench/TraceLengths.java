package dev.tandem.bench;

import java.util.Locale;
import java.util.Map;

/**
 * Length distributions fitted to public chat traces ({@code --lengths-from NAME}): lognormals
 * whose mean and spread match a published table, so that a benchmark looks like production
 * traffic without downloading the trace. A lognormal with mean {@code m} and standard deviation
 * {@code s} has {@code sigma = sqrt(ln(1 + (s / m)^2))}.
 *
 * <ul>
 *   <li>{@code lmsys-chat-1m}: LMSYS-Chat-1M (Zheng et al., "LMSYS-Chat-1M: A Large-Scale
 *       Real-World LLM Conversation Dataset", ICLR 2024, arXiv 2309.11998, Table 1): 69.5 +- 143.4
 *       tokens per user prompt, 214.5 +- 226.6 tokens per response, 2.0 turns per conversation.
 *       Prompt: mean 69.5, sigma 1.29; response: mean 214.5, sigma 0.87.
 * </ul>
 */
public final class TraceLengths {

  /** A fitted pair: one user message, one model reply. */
  public record Fit(LengthDistribution prompt, LengthDistribution output, String source) {}

  private static final Map<String, Fit> FITS = Map.of("lmsys-chat-1m", new Fit(
      new LengthDistribution.LogNormal(69.5, sigma(69.5, 143.4)),
      new LengthDistribution.LogNormal(214.5, sigma(214.5, 226.6)),
      "LMSYS-Chat-1M (Zheng et al., ICLR 2024) Table 1"));

  private TraceLengths() {}

  public static Fit get(String name) {
    Fit f = FITS.get(name.toLowerCase(Locale.ROOT));
    if (f == null) {
      throw new IllegalArgumentException("unknown trace '" + name + "'; known: " + FITS.keySet());
    }
    return f;
  }

  /** The log-space spread of a lognormal with this mean and standard deviation, rounded to 0.01. */
  static double sigma(double mean, double std) {
    double s = Math.sqrt(Math.log(1 + (std / mean) * (std / mean)));
    return Math.round(s * 100) / 100.0;
  }
}
