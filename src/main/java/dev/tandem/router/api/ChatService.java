package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import dev.tandem.api.JsonInts;
import dev.tandem.chat.ChatAnswer;
import dev.tandem.chat.ChatPrompt;
import dev.tandem.chat.ChatRequest;
import dev.tandem.chat.ChatSetup;
import dev.tandem.chat.ChatTemplate;
import dev.tandem.router.dispatch.CompletionJob;
import dev.tandem.router.upstream.Cancellation;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.Set;
import java.util.function.Function;

/**
 * Chat completions, whatever the transport: a chat becomes token ids here, before any dispatch —
 * checked ({@link ChatRequest}), rendered with the model's chat template and tokenized without
 * added special tokens (the template writes them), on a worker unless short ({@link ChatPrompt})
 * — and then runs as the completion of those ids through {@link CompletionService}: the same
 * checks, limits, dispatchers, retries and resumption in both modes, so disaggregation never sees
 * messages. The client's answer is written as chat objects ({@link ChatOutput}), a whole one
 * straight as bytes ({@link ChatWholeAnswer}).
 */
public final class ChatService {

  /**
   * Fields of the chat body that are the router's to turn into the completion (messages, tools,
   * logprobs) or that only completions have: never passed to engines as sent. Every other field
   * (sampling, stop, seed, ...) goes on as a completion field of the same name.
   */
  private static final Set<String> NOT_FOR_ENGINES = Set.of("messages", "tools", "tool_choice",
      "parallel_tool_calls", "logprobs", "top_logprobs", "max_tokens", "max_completion_tokens",
      "add_generation_prompt", "continue_final_message", "documents", "chat_template_kwargs",
      "prompt", "echo", "suffix", "best_of");

  private final Vertx vertx;
  private final CompletionService completions;
  private final TextTokenizer tokenizer;
  private final ChatSetup setup;

  /** @param tokenizer the model's tokenizer; null: every chat is a 400 */
  public ChatService(Vertx vertx, CompletionService completions, TextTokenizer tokenizer,
      ChatSetup setup) {
    this.vertx = vertx;
    this.completions = completions;
    this.tokenizer = tokenizer;
    this.setup = setup;
  }

  /** Checks, renders and tokenizes a chat body; fails with an {@link ApiError} (4xx). */
  Future<PreparedRequest> prepare(JsonObject body, Cancellation cancellation) {
    ChatRequest request;
    try {
      request = ChatRequest.parse(body);
      if (request.logprobs() && request.topLogprobs() > CompletionRequest.MAX_LOGPROBS) {
        throw ApiError.invalid("top_logprobs", "\"top_logprobs\" must be at most "
            + CompletionRequest.MAX_LOGPROBS + " here: engines return at most "
            + CompletionRequest.MAX_LOGPROBS + " alternatives per token; got " + request.topLogprobs());
      }
    } catch (ApiError e) {
      return Future.failedFuture(e);
    }
    return promptIds(request, JsonInts::written)
        .compose(ids -> {
          if (ids.isEmpty()) {
            return Future.failedFuture(ApiError.invalid("messages",
                "the chat template rendered these messages as an empty prompt"));
          }
          return completions.prepare(completionBody(body, request, ids), cancellation);
        })
        .map(job -> prepared(job, request));
  }

  /** The token ids a chat of {@code body} sends engines (its messages rendered); fails with a 4xx. */
  Future<int[]> promptIds(JsonObject body) {
    try {
      return promptIds(ChatRequest.parse(body), ids -> ids);
    } catch (ApiError e) {
      return Future.failedFuture(e);
    }
  }

  /** The chat's prompt rendered and tokenized, passed through {@code then} where it was made. */
  private <T> Future<T> promptIds(ChatRequest request, Function<int[], T> then) {
    ChatTemplate template;
    try {
      template = setup.requireTemplate();
      if (tokenizer == null) {
        throw ApiError.invalid("messages", "unsupported_parameter",
            "this router has no tokenizer to turn a chat into tokens; use /v1/completions with token ids");
      }
    } catch (ApiError e) {
      return Future.failedFuture(e);
    }
    return ChatPrompt.ids(vertx, request, template, tokenizer, then);
  }

  private PreparedRequest prepared(CompletionJob job, ChatRequest request) {
    // chatcmpl-<the request's hex>: the engines' request ids (cmpl-<hex>) name the same request
    ChatAnswer answer = new ChatAnswer("chat" + job.requestId(), job.created(),
        job.responseModel(), job.n(), setup.parseToolCalls(request));
    return new PreparedRequest(answer.id(), job.stream(), job.includeUsage(),
        CompletionService.tokenEstimate(job), (output, clock) -> completions.execute(job,
            new ChatOutput(answer, output, job.stream()), clock));
  }

  /**
   * The completion body that generates the chat's answer: the chat's own generation fields,
   * the prompt as token ids, the token limit ({@code max_completion_tokens} winning over
   * {@code max_tokens}) and chat logprobs as completion logprobs ({@code top_logprobs}
   * alternatives per token).
   */
  static JsonObject completionBody(JsonObject chat, ChatRequest request, JsonInts promptIds) {
    JsonObject body = new JsonObject();
    chat.forEach(e -> {
      if (!NOT_FOR_ENGINES.contains(e.getKey())) {
        body.put(e.getKey(), e.getValue());
      }
    });
    // the ids and their JSON text, held as JsonTree holds a client's ids: CompletionRequest and
    // the engine body take them as they are (boxing each id and reading it back was 6% of the
    // event loop's samples for a 2,000-token chat)
    body.put("prompt", promptIds);
    if (request.sampling().maxTokens() != null) {
      body.put("max_tokens", request.sampling().maxTokens());
    }
    if (request.logprobs()) {
      body.put("logprobs", request.topLogprobs());
    }
    return body;
  }
}
