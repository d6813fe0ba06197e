package dev.tandem.router.api;

import static dev.tandem.config.RouterOptions.BUSY_WAIT;
import static dev.tandem.config.RouterOptions.MAX_ENGINE_ATTEMPTS;
import static dev.tandem.config.RouterOptions.MAX_FAILOVERS;
import static dev.tandem.config.RouterOptions.MAX_PREEMPT_RETRIES;
import static dev.tandem.config.RouterOptions.RETRY_AFTER_SECONDS;

import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import dev.tandem.api.JsonInts;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.dispatch.CompletionFlow;
import dev.tandem.router.dispatch.CompletionJob;
import dev.tandem.router.dispatch.DeliveredTokens;
import dev.tandem.router.dispatch.Dispatcher;
import dev.tandem.router.metrics.RequestClock;
import dev.tandem.router.upstream.Cancellation;
import dev.tandem.tokenizer.TextTokenizer;
import dev.tandem.tokenizer.TokenizerWork;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Completions, whatever the transport (HTTP or event bus): validate, tokenize (on a worker unless
 * the prompt is short: {@link TokenizerWork}), then run the request's {@link CompletionFlow} into
 * the transport's {@link ClientOutput}.
 */
public final class CompletionService {

  /** Client fields the router handles itself or sets per attempt: never passed on as sent. */
  private static final Set<String> ROUTER_FIELDS = Set.of("model", "prompt", "n", "max_tokens",
      "echo", "suffix", "stream", "stream_options", "user", "debug_config", "return_token_ids",
      "seed");

  private final Vertx vertx;
  private final ModelInfo model;
  private final TextTokenizer tokenizer;
  private final Dispatcher dispatcher;
  private final RouterMetrics metrics;
  private final CompletionFlow.Limits limits;
  private final DeliveredTokens deliveredTokens;
  private final EngineCapabilities capabilities;

  /** @param engines the engines the router knows, for what their kinds can serve */
  public CompletionService(Vertx vertx, RouterOptions options, ModelInfo model,
      TextTokenizer tokenizer, Dispatcher dispatcher, RouterMetrics metrics,
      Supplier<List<EngineStatus>> engines) {
    this.capabilities = new EngineCapabilities(engines);
    this.vertx = vertx;
    this.model = model;
    this.tokenizer = tokenizer;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.limits = new CompletionFlow.Limits(options.get(MAX_ENGINE_ATTEMPTS),
        options.get(MAX_PREEMPT_RETRIES), options.get(RETRY_AFTER_SECONDS),
        options.get(BUSY_WAIT).toMillis(), options.get(MAX_FAILOVERS));
    this.deliveredTokens = tokenizer == null ? null : (tail, ids, text) -> vertx.executeBlocking(
        () -> TokenMatch.deliveredCount(tokenizer, tail, ids, text), false);
  }

  public Dispatcher dispatcher() {
    return dispatcher;
  }

  /** Validates {@code body} and makes the job; fails with an {@link ApiError} (400). */
  public Future<CompletionJob> prepare(JsonObject body, Cancellation cancellation) {
    CompletionRequest request;
    try {
      request = CompletionRequest.parse(body);
      request.controls().checkVocabulary(model.limits().vocabSize());
      capabilities.check(request.controls());
    } catch (ApiError e) {
      return Future.failedFuture(e);
    }
    if (!request.prompt().isText()) {
      int[] ids = request.prompt().tokenIds();
      // the ids as the client's body held them (with their bytes, when JsonTree kept them)
      JsonInts prompt = body.getMap().get("prompt") instanceof JsonInts read && read.ids() == ids
          ? read : new JsonInts(ids);
      return tokenized(body, request, prompt, cancellation);
    }
    // the ids' JSON text written where they are made (a worker for a long prompt): engine
    // bodies copy it
    return textIds(request.prompt().text(), JsonInts::written)
        .compose(prompt -> tokenized(body, request, prompt, cancellation));
  }

  /** A text prompt's token ids, as a completion of it sends them to engines; a 400 without a tokenizer. */
  Future<int[]> textIds(String text) {
    return textIds(text, ids -> ids);
  }

  /** {@link #textIds}, passed through {@code then} on the thread that tokenized them. */
  private <T> Future<T> textIds(String text, Function<int[], T> then) {
    if (tokenizer == null) {
      return Future.failedFuture(ApiError.invalid("prompt", "unsupported_parameter",
          "this router has no tokenizer: send the prompt as token ids"));
    }
    return TokenizerWork.run(vertx, TokenizerWork.textOnLoop(text.length()),
        () -> then.apply(tokenizer.encode(text)));
  }

  /**
   * The job of a validated request once its prompt is token ids: at once (no future chain) unless
   * the text to echo must be decoded first.
   */
  private Future<CompletionJob> tokenized(JsonObject body, CompletionRequest request,
      JsonInts prompt, Cancellation cancellation) {
    try {
      model.limits().check(prompt.ids(), request.maxTokens());
    } catch (ApiError e) {
      return Future.failedFuture(e);
    }
    if (!request.echo()) {
      return Future.succeededFuture(job(body, request, prompt, null, cancellation));
    }
    return echoText(request, prompt.ids())
        .map(echo -> job(body, request, prompt, echo, cancellation));
  }

  /**
   * As {@link #prepare}, as a request any transport can run; a list of prompts as one request
   * ({@link PromptBatch}).
   */
  Future<PreparedRequest> prepareRequest(JsonObject body, Cancellation cancellation) {
    JsonArray prompts = PromptBatch.prompts(body.getValue("prompt"));
    if (prompts != null) {
      return PromptBatch.prepare(this, body, prompts, cancellation);
    }
    Future<CompletionJob> job = prepare(body, cancellation);
    return job.succeeded() ? Future.succeededFuture(prepared(job.result())) : job.map(this::prepared);
  }

  private PreparedRequest prepared(CompletionJob job) {
    return new PreparedRequest(job.requestId(), job.stream(), job.includeUsage(),
        tokenEstimate(job), (output, clock) -> execute(job, output, clock));
  }

  /** The most tokens a job may take: its prompt plus n * max_tokens (prompt alone without it). */
  static long tokenEstimate(CompletionJob job) {
    return job.promptIds().length + (job.maxTokens() == null ? 0L : (long) job.maxTokens() * job.n());
  }

  private CompletionJob job(JsonObject body, CompletionRequest r, JsonInts prompt, String echo,
      Cancellation cancellation) {
    JsonObject engineFields = new JsonObject();
    body.forEach(e -> {
      if (!ROUTER_FIELDS.contains(e.getKey()) && e.getValue() != null) {
        engineFields.put(e.getKey(), e.getValue());
      }
    });
    if (r.controls().responseFormat() != null) {
      // MLC reads the schema under its alias "schema" (reference §6 item 10), whatever form came in
      engineFields.put("response_format", r.controls().responseFormat().toMlcJson());
    }
    if (r.ignoreEos()) {
      engineFields.put("debug_config", new JsonObject().put("ignore_eos", true));
    }
    // A sampling request without a seed gets one, so a replay reproduces what was delivered. It
    // only has to differ between requests, not be unguessable: no SecureRandom (its lock was 1% of
    // the event loop).
    Long seed = r.seed() != null ? r.seed() : r.temperature() == 0 ? null
        : ThreadLocalRandom.current().nextLong() >>> 1;
    if (seed != null) {
      engineFields.put("seed", seed);
    }
    // the prompt's bytes, where it has them (the client's, or written where the tokenizer ran),
    // are what engine bodies copy rather than write each id again
    return new CompletionJob(RequestIds.next(), System.currentTimeMillis() / 1000,
        r.model() != null ? r.model() : model.id(), prompt, echo, r.suffix(), r.n(), r.maxTokens(),
        r.stream(), r.includeUsage(), r.logprobs(), r.temperature(), seed, engineFields,
        cancellation);
  }

  /** Runs the job to its end; the output has been completed or failed when this completes. */
  public Future<Void> execute(CompletionJob job, ClientOutput output) {
    return execute(job, output, null);
  }

  /** As {@link #execute(CompletionJob, ClientOutput)}, noting first token and engine on {@code clock}. */
  Future<Void> execute(CompletionJob job, ClientOutput output, RequestClock clock) {
    return flow(job, output, clock).run().andThen(this::ended);
  }

  /**
   * The prompts of one request ({@link PromptBatch}) side by side, each job's answer into its
   * part of one {@link BatchOutput}; the output has been completed or failed when this completes.
   */
  Future<Void> executeAll(List<CompletionJob> jobs, ClientOutput output, RequestClock clock) {
    BatchOutput batch = new BatchOutput(output, jobs.size());
    List<CompletionFlow> flows = new ArrayList<>(jobs.size());
    int choices = 0;
    for (CompletionJob job : jobs) {
      flows.add(flow(job, batch.part(job.promptIndex()), clock));
      choices += job.n();
    }
    if (clock != null) {
      clock.choices(choices); // for the time per token: the request's choices, all prompts'
    }
    List<Future<Void>> runs = new ArrayList<>(flows.size());
    for (CompletionFlow flow : flows) {
      runs.add(flow.run()); // a failure cancels the request: the other flows end too
    }
    // the request's error is the one its client got: the first prompt's failure, not the
    // cancellations it caused in the others
    return Future.join(runs).<Void>transform(ar -> batch.failure() == null
        ? Future.succeededFuture() : Future.failedFuture(batch.failure())).andThen(this::ended);
  }

  private CompletionFlow flow(CompletionJob job, ClientOutput output, RequestClock clock) {
    return new CompletionFlow(vertx, job, dispatcher, output, limits, metrics, deliveredTokens,
        clock);
  }

  private void ended(AsyncResult<Void> ar) {
    metrics.requestEnded(ar.succeeded() ? 200 : ApiError.from(ar.cause()).status());
  }

  /** The prompt's text for a request that asked for echo. */
  private Future<String> echoText(CompletionRequest r, int[] tokens) {
    if (r.prompt().isText()) {
      return Future.succeededFuture(r.prompt().text());
    }
    if (tokenizer == null) {
      return Future.failedFuture(ApiError.invalid("echo", "unsupported_parameter",
          "this router has no tokenizer to echo a token-id prompt"));
    }
    return decode(tokens);
  }

  /** Whether this router has a tokenizer: text prompts, echo, chat and {@link #decode}. */
  boolean canTokenize() {
    return tokenizer != null;
  }

  /** The text of {@code ids} (special tokens skipped), where the ids are few on the loop. */
  Future<String> decode(int[] ids) {
    return TokenizerWork.run(vertx, TokenizerWork.idsOnLoop(ids.length), () -> tokenizer.decode(ids));
  }
}
