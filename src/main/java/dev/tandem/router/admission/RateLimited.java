package dev.tandem.router.admission;

import dev.tandem.api.ApiError;

/**
 * A request refused by admission control: 429 with OpenAI's {@code rate_limit_exceeded} code and
 * a {@code Retry-After}. {@link #cause()} names why, for the counters: {@code queue_full},
 * {@code queue_timeout}, {@code key_requests}, {@code key_tokens}, {@code key_too_large}.
 */
public final class RateLimited extends ApiError {

  private static final long serialVersionUID = 1L;

  private final String reason;
  private final transient RateLimitHeaders headers;

  RateLimited(String reason, String message, int retryAfterSeconds, RateLimitHeaders headers) {
    // OpenAI's type says which limit: "requests" or "tokens"
    super(429, reason.startsWith("key_t") ? "tokens" : "requests", message, null, "rate_limit_exceeded", null, Math.max(1, retryAfterSeconds));
    this.reason = reason;
    this.headers = headers;
  }

  /** Why: queue_full, queue_timeout, key_requests, key_tokens or key_too_large. */
  public String reason() {
    return reason;
  }

  /** The key's limits at the time (null when the refusal was not about a key's limits). */
  public RateLimitHeaders headers() {
    return headers;
  }
}
