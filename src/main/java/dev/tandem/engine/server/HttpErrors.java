package dev.tandem.engine.server;

import dev.tandem.api.ApiError;
import io.vertx.core.http.HttpServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Maps failures to OpenAI error responses, in one place. */
final class HttpErrors {
  private static final Logger LOG = LoggerFactory.getLogger(HttpErrors.class);

  private HttpErrors() {}

  /** Sends {@code failure} as its status and error body, unless the response already started. */
  static void send(HttpServerResponse response, Throwable failure) {
    ApiError error = ApiError.from(failure);
    if (error.status() >= 500 && error.status() != 503 && error.status() != 502) {
      LOG.warn("request failed: {}", error.getMessage(), failure);
    } else {
      LOG.debug("request refused with {}: {}", error.status(), error.getMessage());
    }
    if (response.ended() || response.closed()) {
      return;
    }
    if (response.headWritten()) {
      // the stream already started: cut it so the client cannot mistake it for a complete answer
      response.reset();
      return;
    }
    response.setStatusCode(error.status())
        .putHeader("content-type", "application/json")
        .end(error.toJson().encode());
  }
}
