package dev.tandem.engine.server;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import dev.tandem.api.JsonFields;
import dev.tandem.kv.KvAppendMetadata;
import dev.tandem.engine.sched.Engine;
import dev.tandem.kv.KvWorld;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * The MicroServing endpoints (MLC's {@code /microserving/*}); bodies are a CompletionRequest plus
 * the extra fields of each call. {@code start_generate} is served by {@link CompletionHandler}.
 * Tandem adds {@code POST /microserving/release {"user": id}}: frees a parked reservation (or
 * aborts the request if it already runs) and answers {@code {"user": id, "released": bool}}.
 * Without a KV world every call answers 503.
 */
final class MicroServingHandler {
  static final String NO_WORLD = "This engine is not in a KV world: start it with "
      + KvWorld.ENV + " to use /microserving/* (prep_recv, remote_send, start_generate, release)";

  private final Engine engine;
  private final KvWorld world;
  private final PromptPreparer preparer;
  private final CompletionHandler completions;

  MicroServingHandler(Engine engine, KvWorld world, PromptPreparer preparer,
      CompletionHandler completions) {
    this.engine = engine;
    this.world = world;
    this.preparer = preparer;
    this.completions = completions;
  }

  /** Answers 503 and returns false when there is no world. */
  private boolean inWorld(RoutingContext rc) {
    if (world == null) {
      ErrorResponses.send(rc.response(), ApiError.unavailable("no_kv_world", NO_WORLD));
      return false;
    }
    return true;
  }

  void prepareReceive(RoutingContext rc) {
    if (!inWorld(rc)) {
      return;
    }
    CompletionRequest request;
    int end;
    try {
      JsonObject body = preparer.body(rc.body().buffer());
      request = CompletionRequest.parse(body);
      end = JsonFields.requireInt(body, "end");
      CompletionHandler.requireUser(request, "prep_recv");
    } catch (ApiError e) {
      ErrorResponses.send(rc.response(), e);
      return;
    }
    preparer.prepare(request, request.maxTokens())
        .compose(p -> io.vertx.core.Future.fromCompletionStage(engine.prepareReceive(
            PromptPreparer.generation(request.user(), p.ids(), request), end), rc.vertx().getOrCreateContext()))
        .onSuccess(r -> json(rc, new JsonObject().put("kv_append_metadata", r.kvAppendMetadata())
            .put("prefix_matched_length", r.prefixMatchedLength())))
        .onFailure(e -> ErrorResponses.send(rc.response(), e));
  }

  void remoteSend(RoutingContext rc) {
    if (!inWorld(rc)) {
      return;
    }
    CompletionRequest request;
    int begin;
    int end;
    int recvRank;
    int[] slots;
    try {
      JsonObject body = preparer.body(rc.body().buffer());
      request = CompletionRequest.parse(body);
      begin = JsonFields.requireInt(body, "begin");
      end = JsonFields.requireInt(body, "end");
      recvRank = JsonFields.requireInt(body, "recv_rank");
      String kvAddrInfo = JsonFields.requireString(body, "kv_addr_info");
      CompletionHandler.requireUser(request, "remote_send");
      try {
        slots = KvAppendMetadata.decode(kvAddrInfo);
      } catch (IllegalArgumentException e) {
        throw ApiError.invalid("kv_addr_info", e.getMessage());
      }
      if (recvRank < 0 || recvRank >= world.npes()) {
        throw ApiError.invalid("recv_rank", "\"recv_rank\" " + recvRank + " is not a PE of this"
            + " world (0.." + (world.npes() - 1) + ")");
      }
    } catch (ApiError e) {
      ErrorResponses.send(rc.response(), e);
      return;
    }
    preparer.prepare(request, null)
        .compose(p -> io.vertx.core.Future.fromCompletionStage(engine.remoteSend(
            PromptPreparer.generation(request.user(), p.ids(), request), begin, end, slots,
            recvRank, world.shipper()), rc.vertx().getOrCreateContext()))
        .onSuccess(v -> json(rc, new JsonObject()))
        .onFailure(e -> ErrorResponses.send(rc.response(), e));
  }

  void startGenerate(RoutingContext rc) {
    if (inWorld(rc)) {
      completions.startGenerate(rc);
    }
  }

  void release(RoutingContext rc) {
    if (!inWorld(rc)) {
      return;
    }
    String user;
    try {
      JsonObject body = CompletionRequest.parseObject(rc.body().buffer());
      user = JsonFields.requireString(body, "user");
    } catch (ApiError e) {
      ErrorResponses.send(rc.response(), e);
      return;
    }
    io.vertx.core.Future.fromCompletionStage(engine.release(user), rc.vertx().getOrCreateContext())
        .onSuccess(released -> json(rc, new JsonObject().put("user", user).put("released", released)))
        .onFailure(e -> ErrorResponses.send(rc.response(), e));
  }

  private static void json(RoutingContext rc, JsonObject body) {
    if (!rc.response().closed()) {
      rc.response().putHeader("content-type", "application/json").end(body.encode());
    }
  }
}
