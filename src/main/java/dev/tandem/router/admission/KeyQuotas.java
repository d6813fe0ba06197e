package dev.tandem.router.admission;

import dev.tandem.router.access.ClientKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Per-key request and token buckets (requests and tokens per minute). A key's own {@code rpm=} /
 * {@code tpm=} win over the router's defaults; 0 means no limit. Keys are told apart by name, so
 * keys given the same {@code name=} share their buckets. A request reserves one request and its
 * token estimate (prompt + n * max_tokens) at admission, both or neither; when it ends, the
 * reservation is settled on what its usage says it really took.
 */
final class KeyQuotas {

  private final int defaultRpm;
  private final int defaultTpm;
  private final LongSupplier nanos;
  private final Map<String, Quota> quotas = new ConcurrentHashMap<>();

  KeyQuotas(int defaultRpm, int defaultTpm, LongSupplier nanos) {
    this.defaultRpm = defaultRpm;
    this.defaultTpm = defaultTpm;
    this.nanos = nanos;
  }

  /** One key's buckets; a null bucket is no limit. */
  final class Quota {
    final TokenBucket requests;
    final TokenBucket tokens;

    Quota(ClientKey key) {
      long now = nanos.getAsLong();
      int rpm = key.requestsPerMinute() != null ? key.requestsPerMinute() : defaultRpm;
      int tpm = key.tokensPerMinute() != null ? key.tokensPerMinute() : defaultTpm;
      requests = rpm > 0 ? new TokenBucket(rpm, now) : null;
      tokens = tpm > 0 ? new TokenBucket(tpm, now) : null;
    }

    /**
     * Takes one request and {@code tokenEstimate} tokens, or nothing and throws {@link RateLimited}.
     */
    synchronized RateLimitHeaders reserve(ClientKey key, long tokenEstimate) {
      long now = nanos.getAsLong();
      if (tokens != null && tokenEstimate > tokens.capacity()) {
        throw new RateLimited("key_too_large", "this request may take " + tokenEstimate
            + " tokens (prompt + n * max_tokens), more than the " + tokens.capacity()
            + " tokens per minute of key '" + key.name() + "': lower max_tokens or n",
            60, headers(now));
      }
      if (requests != null && !requests.has(1, now)) {
        throw new RateLimited("key_requests", "rate limit reached for key '" + key.name()
            + "' on requests per minute: limit " + requests.capacity(),
            seconds(requests.nanosUntil(1, now)), headers(now));
      }
      if (tokens != null && !tokens.has(tokenEstimate, now)) {
        throw new RateLimited("key_tokens", "rate limit reached for key '" + key.name()
            + "' on tokens per minute: limit " + tokens.capacity() + ", remaining "
            + tokens.available(now) + ", requested " + tokenEstimate,
            seconds(tokens.nanosUntil(tokenEstimate, now)), headers(now));
      }
      if (requests != null) {
        requests.take(1, now);
      }
      if (tokens != null) {
        tokens.take(tokenEstimate, now);
      }
      return headers(now);
    }

    /** A reservation that was never used (the request was refused later): all of it back. */
    void cancel(long reserved) {
      long now = nanos.getAsLong();
      if (requests != null) {
        requests.settle(1, 0, now);
      }
      if (tokens != null) {
        tokens.settle(reserved, 0, now);
      }
    }

    void settle(long reserved, long used) {
      if (tokens != null && used >= 0) {
        tokens.settle(reserved, used, nanos.getAsLong());
      }
    }

    RateLimitHeaders headers(long now) {
      return new RateLimitHeaders(
          requests == null ? -1 : requests.capacity(), requests == null ? 0 : requests.available(now),
          requests == null ? 0 : toFull(requests, now),
          tokens == null ? -1 : tokens.capacity(), tokens == null ? 0 : tokens.available(now),
          tokens == null ? 0 : toFull(tokens, now));
    }

    boolean limited() {
      return requests != null || tokens != null;
    }
  }

  Quota of(ClientKey key) {
    return quotas.computeIfAbsent(key.name(), n -> new Quota(key));
  }

  private static double toFull(TokenBucket b, long now) {
    return b.nanosUntil(b.capacity(), now) / 1e9;
  }

  private static int seconds(long nanos) {
    return (int) Math.max(1, Math.ceil(nanos / 1e9));
  }
}
