package dev.tandem.engine.server;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import dev.tandem.api.JsonFields;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.GenerationListener;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1/completions} and {@code POST /microserving/start_generate}: parse and validate,
 * tokenize off the event loop, hand the request to the engine, and answer through a
 * {@link CompletionResponder}. A client that goes away aborts its request, freeing its KV.
 */
final class CompletionHandler {
  private final Engine engine;
  private final PromptPreparer preparer;
  private final boolean debug;
  private final long clientStallLimitMs;

  CompletionHandler(Engine engine, PromptPreparer preparer, boolean debug, long clientStallLimitMs) {
    this.engine = engine;
    this.preparer = preparer;
    this.debug = debug;
    this.clientStallLimitMs = clientStallLimitMs;
  }

  void completions(RoutingContext rc) {
    CompletionRequest request;
    boolean tokenIds;
    try {
      JsonObject body = preparer.body(rc.body().buffer());
      request = CompletionRequest.parse(body);
      tokenIds = tokenIds(body);
    } catch (ApiError e) {
      ErrorResponses.send(rc.response(), e);
      return;
    }
    String id = request.requestIdOr(CompletionRequest::newCompletionId);
    Context context = rc.vertx().getOrCreateContext();
    HttpServerResponse response = rc.response();
    preparer.prepare(request, request.maxTokens())
        .onSuccess(prepared -> submit(context, response, id, request, prepared,
            AnswerFormat.COMPLETION, tokenIds))
        .onFailure(e -> ErrorResponses.send(response, e));
  }

  /**
   * Hands a prepared request to the engine and answers it in {@code format} (on {@code context});
   * {@code tokenIds}: streamed choices name their token ids.
   */
  void submit(Context context, HttpServerResponse response, String id, CompletionRequest request,
      PromptPreparer.Prepared prepared, AnswerFormat format, boolean tokenIds) {
    if (response.closed()) {
      return;
    }
    CompletionResponder responder = responder(context, response, id, request, prepared.echoText(),
        format, tokenIds);
    try {
      engine.submit(PromptPreparer.generation(id, prepared.ids(), request), responder);
    } catch (RuntimeException e) {
      ErrorResponses.send(response, e);
      return;
    }
    abortOnClose(response, responder, id);
  }

  /** start_generate: resumes the parked request named by {@code user} from {@code begin}. */
  void startGenerate(RoutingContext rc) {
    CompletionRequest request;
    int begin;
    boolean tokenIds;
    try {
      JsonObject body = preparer.body(rc.body().buffer());
      request = CompletionRequest.parse(body);
      begin = JsonFields.requireInt(body, "begin");
      tokenIds = tokenIds(body);
      requireUser(request, "start_generate");
    } catch (ApiError e) {
      ErrorResponses.send(rc.response(), e);
      return;
    }
    Context context = rc.vertx().getOrCreateContext();
    HttpServerResponse response = rc.response();
    Future<String> echo = Future.succeededFuture(null);
    if (request.echo()) {
      echo = preparer.prepare(request, null).map(PromptPreparer.Prepared::echoText);
    }
    echo.onSuccess(echoText -> {
      if (response.closed()) {
        return;
      }
      CompletionResponder responder = responder(context, response, request.user(), request, echoText,
          AnswerFormat.COMPLETION, tokenIds);
      engine.startGenerate(request.user(), begin, responder);
      abortOnClose(response, responder, request.user());
    }).onFailure(e -> ErrorResponses.send(response, e));
  }

  static void requireUser(CompletionRequest request, String call) {
    if (request.user() == null) {
      throw ApiError.invalid("user", "/microserving/" + call + " needs \"user\": the request id"
          + " shared by prep_recv, remote_send and start_generate");
    }
  }

  /** {@code return_token_ids} (vLLM's name): streamed choices name their token ids. */
  private static boolean tokenIds(JsonObject body) {
    return Boolean.TRUE.equals(JsonFields.optBoolean(body, "return_token_ids"));
  }

  private CompletionResponder responder(Context context, HttpServerResponse response, String id,
      CompletionRequest request, String echoText, AnswerFormat format, boolean tokenIds) {
    return new CompletionResponder(context, response, new CompletionResponder.Shape(id,
        request.model(), request.n(), request.stream(), request.includeUsage(),
        request.logprobs() != null, echoText, request.suffix(), debug, tokenIds), format, flow(id),
        clientStallLimitMs);
  }

  private CompletionResponder.ClientFlow flow(String id) {
    return new CompletionResponder.ClientFlow() {
      @Override
      public void hold(GenerationListener listener, boolean hold) {
        try {
          engine.holdOutput(id, listener, hold);
        } catch (ApiError stopping) {
          // the engine is shutting down: nothing left to hold
        }
      }

      @Override
      public void abort() {
        try {
          engine.abort(id);
        } catch (ApiError stopping) {
          // the engine is shutting down and ends every request itself
        }
      }
    };
  }

  private void abortOnClose(HttpServerResponse response, CompletionResponder responder, String id) {
    response.closeHandler(v -> {
      if (!responder.ended()) {
        engine.abort(id);
      }
    });
  }
}
