package dev.tandem.router.dispatch;

import dev.tandem.api.ApiError;

/**
 * No READY engine can take the request now: 503 with {@code Retry-After}. {@link #recovering()}
 * says whether an engine that could is on its way back (starting, restarting), so
 * that a request may wait for it instead of failing at once.
 */
public final class NoEngineAvailableException extends ApiError {

  private static final long serialVersionUID = 1L;
  private final boolean recovering;

  public NoEngineAvailableException(String message, int retryAfterSeconds) {
    this(message, retryAfterSeconds, false);
  }

  public NoEngineAvailableException(String message, int retryAfterSeconds, boolean recovering) {
    super(503, "service_unavailable", message, null, "no_engine_available", null, retryAfterSeconds);
    this.recovering = recovering;
  }

  /** An engine of the needed role is starting or restarting: worth waiting a little. */
  public boolean recovering() {
    return recovering;
  }
}
