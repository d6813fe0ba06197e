package dev.tandem.api;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one OpenAI error writer of router and engine: any failure becomes its status, the OpenAI
 * error body and, for "try again later" answers, {@code Retry-After}. A typed failure
 * ({@link ApiError}) keeps its own status; anything else is a bug of ours, logged, and a 500.
 */
public final class ErrorResponses {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorResponses.class);
  /** What a client that left is counted as (nginx's "client closed request"). */
  public static final int CLIENT_GONE = 499;
  /** {@code application/json} as Netty's ASCII string: the header encoder copies it as bytes. */
  public static final CharSequence APPLICATION_JSON = HttpHeaders.createOptimized("application/json");

  private ErrorResponses() {}

  /**
   * Sends {@code failure} unless the response is already over. A response whose head was sent
   * (a stream that started) is reset, so that the client cannot mistake it for a whole answer.
   *
   * @return the status sent, or {@link #CLIENT_GONE} when the client was already gone
   */
  public static int send(HttpServerResponse response, Throwable failure) {
    ApiError error = typed(failure);
    if (response.closed() || response.ended()) {
      return CLIENT_GONE;
    }
    if (response.headWritten()) {
      response.reset();
      return error.status();
    }
    response.setStatusCode(error.status()).putHeader(HttpHeaders.CONTENT_TYPE, APPLICATION_JSON);
    if (error.retryAfterSeconds() > 0) {
      response.putHeader(HttpHeaders.RETRY_AFTER, Integer.toString(error.retryAfterSeconds()));
    }
    response.end(error.toJson().encode());
    return error.status();
  }

  /** The failure as an {@link ApiError}, logging the ones that are our own bugs. */
  public static ApiError typed(Throwable failure) {
    ApiError error = ApiError.from(failure);
    if (error.status() == 500) {
      LOG.error("request failed: {}", error.getMessage(), failure);
    } else {
      LOG.debug("request refused with {}: {}", error.status(), error.getMessage());
    }
    return error;
  }
}
