package dev.tandem.router.api;

import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.metrics.RequestClock;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.function.BiFunction;

/**
 * A request that passed validation and was tokenized, ready to run into the transport's output
 * (HTTP or event bus): a completion, or a chat running as the completion of its rendered prompt.
 *
 * @param id the id the client sees ({@code cmpl-...} or {@code chatcmpl-...})
 * @param tokenEstimate the most tokens it may take (prompt + n * max_tokens; prompt alone when
 *     max_tokens is not given), reserved from the key's tokens-per-minute bucket
 * @param run runs the request to its end, noting its times on the clock; the output has been
 *     completed or failed when it completes
 */
record PreparedRequest(String id, boolean stream, boolean includeUsage, long tokenEstimate,
    BiFunction<ClientOutput, RequestClock, Future<Void>> run) {

  Future<Void> execute(ClientOutput output, RequestClock clock) {
    return run.apply(output, clock);
  }

  /** What an endpoint does with a body: validate and tokenize, or fail with an ApiError (4xx). */
  @FunctionalInterface
  interface Preparer {
    Future<PreparedRequest> prepare(JsonObject body, Cancellation cancellation);
  }
}
