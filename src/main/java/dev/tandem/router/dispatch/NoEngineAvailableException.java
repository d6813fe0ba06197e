package dev.tandem.router.dispatch;

import dev.tandem.router.RouterException;

/** No READY engine can take the request now: 503 with {@code Retry-After}. */
public final class NoEngineAvailableException extends RouterException {

  private static final long serialVersionUID = 1L;
  private final int retryAfterSeconds;

  public NoEngineAvailableException(String message, int retryAfterSeconds) {
    super(503, "service_unavailable", "no_engine_available", null, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }

  @Override
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
