package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import dev.tandem.api.ErrorResponses;
import dev.tandem.api.JsonFields;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * {@code POST /tokenize} and {@code POST /detokenize}, as vLLM serves them, so that a client can
 * count a prompt against the model's context before it sends it: the token ids the router would
 * send engines for a completion's {@code prompt} (a string) or a chat's {@code messages} (rendered
 * by the chat template, as a chat completion is), with their count and the context length; and
 * the text of a list of ids. The ids come from the same code as the requests' own
 * ({@link CompletionService#textIds}, {@link ChatService#promptIds}), so they cannot differ;
 * the text is {@link CompletionService#decode}'s, as echo's.
 * Behind the API keys, as {@code /v1/*}.
 */
final class TokenizeRoutes {

  static final String TOKENIZE = "/tokenize";
  static final String DETOKENIZE = "/detokenize";

  private final ModelInfo model;
  private final CompletionService completions;
  private final ChatService chat;

  private TokenizeRoutes(ModelInfo model, CompletionService completions, ChatService chat) {
    this.model = model;
    this.completions = completions;
    this.chat = chat;
  }

  /** Mounts both routes, each behind {@code apiKey} and a body limit of {@code maxBody}. */
  static void mount(Router router, Handler<RoutingContext> apiKey, int maxBody, ModelInfo model,
      CompletionService completions, ChatService chat) {
    TokenizeRoutes routes = new TokenizeRoutes(model, completions, chat);
    for (String path : new String[] {TOKENIZE, DETOKENIZE}) {
      router.route(path).handler(apiKey);
      router.post(path).handler(BodyHandler.create(false).setBodyLimit(maxBody))
          .handler(path.equals(TOKENIZE) ? routes::tokenize : routes::detokenize);
    }
  }

  private void tokenize(RoutingContext ctx) {
    JsonObject body;
    Future<int[]> ids;
    try {
      body = bodyOf(ctx);
      if (body.containsKey("messages")) {
        ids = chat.promptIds(body);
      } else if (body.getValue("prompt") instanceof String text) {
        ids = completions.textIds(text);
      } else {
        throw body.containsKey("prompt")
            ? JsonFields.typeError("prompt", "a string", body.getValue("prompt"))
            : ApiError.invalid("prompt", "give \"prompt\" (a string) or \"messages\" (a chat)");
      }
    } catch (ApiError e) {
      ErrorResponses.send(ctx.response(), e);
      return;
    }
    ids.onComplete(ar -> {
      if (ar.failed()) {
        ErrorResponses.send(ctx.response(), ar.cause());
        return;
      }
      int[] tokens = ar.result();
      JsonArray list = new JsonArray();
      for (int id : tokens) {
        list.add(id);
      }
      json(ctx, new JsonObject().put("count", tokens.length)
          .put("max_model_len", model.contextLength()).put("tokens", list));
    });
  }

  private void detokenize(RoutingContext ctx) {
    int[] ids;
    try {
      if (!completions.canTokenize()) {
        throw ApiError.invalid("tokens", "unsupported_parameter",
            "this router has no tokenizer to turn token ids into text");
      }
      ids = tokenIds(bodyOf(ctx).getValue("tokens"));
    } catch (ApiError e) {
      ErrorResponses.send(ctx.response(), e);
      return;
    }
    completions.decode(ids).onComplete(ar -> {
      if (ar.failed()) {
        ErrorResponses.send(ctx.response(), ar.cause());
      } else {
        json(ctx, new JsonObject().put("prompt", ar.result()));
      }
    });
  }

  /** {@code tokens}: a list of ids of the model's vocabulary, or a 400 that says what is wrong. */
  private int[] tokenIds(Object value) {
    if (!(value instanceof JsonArray list)) {
      throw value == null ? ApiError.invalid("tokens", "\"tokens\" is required: a list of token ids")
          : JsonFields.typeError("tokens", "a list of token ids", value);
    }
    int[] ids = new int[list.size()];
    for (int i = 0; i < ids.length; i++) {
      if (!(list.getValue(i) instanceof Integer id) || id < 0) {
        throw ApiError.invalid("tokens", "invalid_token", "\"tokens\" element " + i + " is "
            + JsonFields.describe(list.getValue(i)) + ", not a token id");
      }
      ids[i] = id;
    }
    model.limits().checkVocabulary(ids, "tokens");
    return ids;
  }

  private static JsonObject bodyOf(RoutingContext ctx) {
    return CompletionRequest.parseObject(ctx.body().buffer());
  }

  private static void json(RoutingContext ctx, JsonObject body) {
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, ErrorResponses.APPLICATION_JSON)
        .end(body.encode());
  }
}
