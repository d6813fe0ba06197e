package dev.tandem.router.api;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/** Sends a mapped failure as an HTTP response (status, OpenAI body, Retry-After). */
final class HttpErrors {

  private HttpErrors() {}

  /** @return the status sent (499 if the client was already gone) */
  static int send(HttpServerResponse response, Throwable failure) {
    ErrorMapper.Mapped m = ErrorMapper.map(failure);
    if (response.closed() || response.ended()) {
      return 499;
    }
    response.setStatusCode(m.status()).putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
    if (m.retryAfterSeconds() > 0) {
      response.putHeader(HttpHeaders.RETRY_AFTER, Integer.toString(m.retryAfterSeconds()));
    }
    response.end(m.body().encode());
    return m.status();
  }
}
