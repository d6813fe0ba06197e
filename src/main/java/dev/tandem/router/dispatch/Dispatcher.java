package dev.tandem.router.dispatch;

import io.vertx.core.Future;

/**
 * One routing mode: runs an attempt on engines it chooses and relays the engine's chunks to the
 * attempt's target. The future fails with a typed failure; retries and resumption are the
 * {@link CompletionFlow}'s business, not the dispatcher's.
 */
public interface Dispatcher {

  Future<Void> run(Attempt attempt);

  /** Whether some request could be served now (for {@code /ready}). */
  boolean canServe();
}
