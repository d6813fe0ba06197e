package dev.tandem.router.upstream;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;

/** The client went away; the work for it was stopped. Nobody is left to read a response. */
public final class ClientGoneException extends ApiError {

  private static final long serialVersionUID = 1L;

  public ClientGoneException() {
    // 499 is nginx's "client closed request": only ever seen in logs and metrics.
    super(ErrorResponses.CLIENT_GONE, "client_closed_request", "the client closed the request", null,
        "client_gone");
  }
}
