package dev.tandem.router.upstream;

import dev.tandem.router.RouterException;

/** The client went away; the work for it was stopped. Nobody is left to read a response. */
public final class ClientGoneException extends RouterException {

  private static final long serialVersionUID = 1L;

  public ClientGoneException() {
    // 499 is nginx's "client closed request": only ever seen in logs and metrics.
    super(499, "client_closed_request", "client_gone", null, "the client closed the request");
  }
}
