package dev.tandem.router.api;

import dev.tandem.router.ModelInfo;
import dev.tandem.router.RouterMetrics;
import dev.tandem.router.RouterOptions;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.dispatch.CompletionFlow;
import dev.tandem.router.dispatch.CompletionJob;
import dev.tandem.router.dispatch.Dispatcher;
import dev.tandem.router.upstream.Cancellation;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * Completions, whatever the transport (HTTP or event bus): validate, tokenize off the event loop,
 * then run the request's {@link CompletionFlow} into the transport's {@link ClientOutput}.
 */
public final class CompletionService {

  private final Vertx vertx;
  private final ModelInfo model;
  private final TextTokenizer tokenizer;
  private final Dispatcher dispatcher;
  private final RouterMetrics metrics;
  private final CompletionFlow.Limits limits;

  public CompletionService(Vertx vertx, RouterOptions options, ModelInfo model,
      TextTokenizer tokenizer, Dispatcher dispatcher, RouterMetrics metrics) {
    this.vertx = vertx;
    this.model = model;
    this.tokenizer = tokenizer;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.limits = new CompletionFlow.Limits(options.getMaxEngineAttempts(),
        options.getMaxPreemptRetries(), options.getRetryAfterSeconds());
  }

  public Dispatcher dispatcher() {
    return dispatcher;
  }

  /** Validates {@code body} and makes the job; fails with {@link InvalidRequestException}. */
  public Future<CompletionJob> prepare(JsonObject body, Cancellation cancellation) {
    ParsedCompletion p;
    try {
      p = CompletionValidator.parse(body, model);
    } catch (InvalidRequestException e) {
      return Future.failedFuture(e);
    }
    Future<int[]> ids;
    if (p.promptIds() != null) {
      ids = Future.succeededFuture(p.promptIds());
    } else if (tokenizer == null) {
      return Future.failedFuture(new InvalidRequestException("prompt", "unsupported_parameter",
          "this router has no tokenizer: send the prompt as token ids"));
    } else {
      ids = encode(p.promptText()).compose(tokens -> {
        try {
          CompletionValidator.checkTokens(tokens, p.maxTokens(), model);
          return Future.succeededFuture(tokens);
        } catch (InvalidRequestException e) {
          return Future.failedFuture(e);
        }
      });
    }
    return ids.compose(tokens -> echoText(p, tokens).map(echo -> new CompletionJob(
        RequestIds.next(), System.currentTimeMillis() / 1000,
        p.model() != null ? p.model() : model.id(), tokens, echo, p.n(), p.maxTokens(), p.stream(),
        p.includeUsage(), p.logprobs(), p.temperature(), p.seed(), p.penalties(),
        p.engineFields(), cancellation)));
  }

  /** Runs the job to its end; the output has been completed or failed when this completes. */
  public Future<Void> execute(CompletionJob job, ClientOutput output) {
    return new CompletionFlow(job, dispatcher, output, limits, metrics,
        tokenizer == null ? null : this::encode).run()
        .andThen(ar -> metrics.requestEnded(ar.succeeded() ? 200 : ErrorMapper.statusOf(ar.cause())));
  }

  private Future<String> echoText(ParsedCompletion p, int[] tokens) {
    if (!p.echo()) {
      return Future.succeededFuture(null);
    }
    if (p.promptText() != null) {
      return Future.succeededFuture(p.promptText());
    }
    if (tokenizer == null) {
      return Future.failedFuture(new InvalidRequestException("echo", "unsupported_parameter",
          "this router has no tokenizer to echo a token-id prompt"));
    }
    return vertx.executeBlocking(() -> tokenizer.decode(tokens), false);
  }

  private Future<int[]> encode(String text) {
    return vertx.executeBlocking(() -> tokenizer.encode(text), false);
  }
}
