package dev.tandem.router.admission;

import io.vertx.core.MultiMap;
import java.util.Locale;

/**
 * OpenAI's rate-limit headers for one key at one moment: {@code x-ratelimit-limit-requests},
 * {@code x-ratelimit-remaining-requests}, {@code x-ratelimit-reset-requests} (time until the
 * bucket is full again, e.g. {@code 1.5s}) and the same for tokens; a limit that is not set is
 * left out. A value of -1 means "no such limit".
 */
public record RateLimitHeaders(long limitRequests, long remainingRequests, double resetRequestsS,
    long limitTokens, long remainingTokens, double resetTokensS) {

  public void addTo(MultiMap headers) {
    if (limitRequests >= 0) {
      headers.set("x-ratelimit-limit-requests", Long.toString(limitRequests));
      headers.set("x-ratelimit-remaining-requests", Long.toString(Math.max(0, remainingRequests)));
      headers.set("x-ratelimit-reset-requests", seconds(resetRequestsS));
    }
    if (limitTokens >= 0) {
      headers.set("x-ratelimit-limit-tokens", Long.toString(limitTokens));
      headers.set("x-ratelimit-remaining-tokens", Long.toString(Math.max(0, remainingTokens)));
      headers.set("x-ratelimit-reset-tokens", seconds(resetTokensS));
    }
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.3fs", s);
  }
}
