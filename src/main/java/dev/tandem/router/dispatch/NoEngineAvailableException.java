package dev.tandem.router.dispatch;

import dev.tandem.api.ApiError;

/** No READY engine can take the request now: 503 with {@code Retry-After}. */
public final class NoEngineAvailableException extends ApiError {

  private static final long serialVersionUID = 1L;

  public NoEngineAvailableException(String message, int retryAfterSeconds) {
    super(503, "service_unavailable", message, null, "no_engine_available", null, retryAfterSeconds);
  }
}
