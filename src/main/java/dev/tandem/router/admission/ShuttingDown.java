package dev.tandem.router.admission;

import dev.tandem.api.ApiError;

/**
 * A request that arrived after the router began to stop ({@link Admission#drain}): 503 with
 * {@code Retry-After}, so that a client (or a load balancer) sends it to another router.
 */
public final class ShuttingDown extends ApiError {

  private static final long serialVersionUID = 1L;

  ShuttingDown(int retryAfterSeconds) {
    super(503, "service_unavailable", "this router is stopping: it finishes the requests it has"
        + " and takes no new ones; send this one to another router", null, "shutting_down", null,
        Math.max(1, retryAfterSeconds));
  }
}
