package dev.tandem.engine.server;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import dev.tandem.api.FleetSecret;
import dev.tandem.api.HttpServers;
import dev.tandem.chat.ChatSetup;
import dev.tandem.engine.sched.Engine;
import dev.tandem.tokenizer.TextTokenizer;
import dev.tandem.kv.KvWorld;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.micrometer.PrometheusScrapingHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The builtin engine's HTTP API, wire-compatible with {@code mlc_llm serve}: /v1/models,
 * /v1/completions, /v1/chat/completions, /microserving/*, /metrics, /health and (with --enable-debug)
 * /debug/dump_engine_metrics. Compute runs on the engine's thread, tokenization on workers.
 */
public final class EngineServerVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(EngineServerVerticle.class);
  private static final long BODY_LIMIT_BYTES = 64L << 20;
  /**
   * A fixed socket send buffer (the kernel doubles it) instead of autotuning up to several MB, so
   * that a streaming client that stops reading pushes back on the engine (its request is held)
   * after a few hundred KB of output rather than after thousands of tokens.
   */
  static final int SEND_BUFFER_BYTES = 256 << 10;

  private final Engine engine;
  private final TextTokenizer tokenizer;
  private final KvWorld world;
  private final EngineServerConfig config;
  private final ChatSetup chat;
  private final EngineMetrics metrics;
  private HttpServer server;

  /** {@code world} may be null: the engine then serves completions only. */
  public EngineServerVerticle(Engine engine, TextTokenizer tokenizer, KvWorld world,
      EngineServerConfig config) {
    this(engine, tokenizer, world, config, ChatSetup.none());
  }

  /** @param chat the chat template and tool-call parser, loaded at start ({@link ChatSetup#load}) */
  public EngineServerVerticle(Engine engine, TextTokenizer tokenizer, KvWorld world,
      EngineServerConfig config, ChatSetup chat) {
    this.engine = engine;
    this.tokenizer = tokenizer;
    this.world = world;
    this.config = config;
    this.chat = chat;
    this.metrics = new EngineMetrics(engine::stats, config.cores());
  }

  @Override
  public Future<?> start() {
    PromptPreparer preparer = new PromptPreparer(vertx, engine, tokenizer);
    CompletionHandler completions = new CompletionHandler(engine, preparer, config.debug(),
        config.clientStallLimit().toMillis());
    MicroServingHandler microServing = new MicroServingHandler(engine, world, preparer, completions);
    ChatCompletionHandler chatCompletions = new ChatCompletionHandler(engine, tokenizer, chat, preparer,
        completions);

    Router router = Router.router(vertx);
    String secret = config.fleetSecret();
    if (secret != null) {
      router.route().handler(rc -> {
        if (FleetSecret.matches(secret, rc.request().getHeader(FleetSecret.HEADER))) {
          rc.next();
        } else {
          error(rc, FleetSecret.refusal());
        }
      });
    }
    router.route().handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT_BYTES));
    router.get("/v1/models").handler(this::models);
    router.get("/health").handler(rc -> rc.json(new JsonObject().put("status", "ok")));
    router.get("/metrics").handler(PrometheusScrapingHandler.create(metrics.registry()));
    counted(router, "/v1/completions", completions::completions);
    counted(router, "/v1/chat/completions", chatCompletions::chat);
    counted(router, "/microserving/prep_recv", microServing::prepareReceive);
    counted(router, "/microserving/remote_send", microServing::remoteSend);
    counted(router, "/microserving/start_generate", microServing::startGenerate);
    counted(router, "/microserving/release", microServing::release);
    if (config.debug()) {
      router.post("/debug/dump_engine_metrics").handler(rc -> rc.json(metrics.mlcMetrics()));
    }
    router.errorHandler(404, rc -> error(rc, new ApiError(404, ApiError.INVALID_REQUEST,
        "No route " + rc.request().method() + " " + rc.request().path(), null, "not_found")));
    router.errorHandler(405, rc -> error(rc, new ApiError(405, ApiError.INVALID_REQUEST,
        "Method " + rc.request().method() + " is not allowed on " + rc.request().path(), null,
        "method_not_allowed")));
    router.errorHandler(413, rc -> error(rc, new ApiError(413, ApiError.INVALID_REQUEST,
        "Request body is larger than " + BODY_LIMIT_BYTES + " bytes", null, "body_too_large")));
    router.errorHandler(500, rc -> error(rc, ApiError.from(rc.failure() != null ? rc.failure()
        : new IllegalStateException("internal error"))));

    return vertx.createHttpServer(HttpServers.options(config.host(), config.port())
            .setSendBufferSize(SEND_BUFFER_BYTES))
        .requestHandler(router).listen()
        .onSuccess(s -> {
          server = s;
          LOG.info("engine HTTP server listening on http://{}:{}", config.host(), s.actualPort());
        });
  }

  /** The port actually bound (useful when configured as 0). */
  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  private void counted(Router router, String path, io.vertx.core.Handler<RoutingContext> handler) {
    Counter received = metrics.route(path);
    router.post(path).handler(rc -> {
      received.increment();
      handler.handle(rc);
    });
  }

  private void models(RoutingContext rc) {
    JsonObject model = new JsonObject().put("id", config.modelId())
        .put("created", System.currentTimeMillis() / 1000).put("object", "model")
        .put("owned_by", "tandem");
    rc.json(new JsonObject().put("object", "list").put("data", new JsonArray().add(model)));
  }

  private static void error(RoutingContext rc, ApiError e) {
    ErrorResponses.send(rc.response(), e);
  }
}
