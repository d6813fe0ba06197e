package dev.tandem.engine.server;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.chat.ChatAnswer;
import dev.tandem.chat.ChatPrompt;
import dev.tandem.chat.ChatRequest;
import dev.tandem.chat.ChatSetup;
import dev.tandem.chat.ChatTemplate;
import dev.tandem.engine.sched.Engine;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1/chat/completions}, as {@code mlc_llm serve} serves it: the chat is checked,
 * rendered with the chat template and tokenized (without added special tokens: the template
 * writes them) on a worker unless short ({@link ChatPrompt}), then runs as the completion of that
 * prompt — same sampling, limits, streaming and back-pressure — and is answered as
 * {@code chat.completion(.chunk)} objects, with tool calls parsed out under
 * {@code --tool-call-parser hermes}.
 */
final class ChatCompletionHandler {
  private final Engine engine;
  private final PromptPreparer preparer;
  private final TextTokenizer tokenizer;
  private final ChatSetup setup;
  private final CompletionHandler completions;

  ChatCompletionHandler(Engine engine, TextTokenizer tokenizer, ChatSetup setup,
      PromptPreparer preparer, CompletionHandler completions) {
    this.engine = engine;
    this.preparer = preparer;
    this.tokenizer = tokenizer;
    this.setup = setup;
    this.completions = completions;
  }

  void chat(RoutingContext rc) {
    ChatRequest request;
    ChatTemplate template;
    try {
      request = ChatRequest.parse(preparer.body(rc.body().buffer()));
      template = setup.requireTemplate();
    } catch (ApiError e) {
      ErrorResponses.send(rc.response(), e);
      return;
    }
    // MLC's engines name a request by its user when given, as for completions
    String id = request.sampling().user() != null ? request.sampling().user() : ChatRequest.newChatId();
    Context context = rc.vertx().getOrCreateContext();
    HttpServerResponse response = rc.response();
    ChatPrompt.ids(rc.vertx(), request, template, tokenizer, ids -> {
      if (ids.length == 0) {
        throw ApiError.invalid("messages", "the chat template rendered these messages as an empty prompt");
      }
      engine.checkPrompt(ids, request.sampling().maxTokens());
      return ids;
    }).onSuccess(ids -> {
      ChatAnswer answer = new ChatAnswer(id, System.currentTimeMillis() / 1000, request.model(),
          request.sampling().n(), setup.parseToolCalls(request));
      completions.submit(context, response, id, request.toCompletion(ids),
          new PromptPreparer.Prepared(ids, null), AnswerFormat.chat(answer), false);
    }).onFailure(e -> ErrorResponses.send(response, e));
  }
}
