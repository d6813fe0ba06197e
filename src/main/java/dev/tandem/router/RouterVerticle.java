package dev.tandem.router;

import static dev.tandem.config.RouterOptions.CONNECT_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_CONNECTIONS_PER_ENGINE;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.config.RouterOptions;
import dev.tandem.router.api.BusCompletionsEndpoint;
import dev.tandem.router.api.CompletionService;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.router.api.RouterApi;
import dev.tandem.router.dispatch.Dispatcher;
import dev.tandem.router.dispatch.Dispatchers;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.registry.EngineRegistry;
import dev.tandem.router.registry.FleetSubscription;
import dev.tandem.router.upstream.EngineClient;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenAI front door of the fleet: HTTP API and event-bus completions, an engine registry fed
 * only by the fleet's status events, and the dispatcher of the configured mode. Deploy one
 * instance per router (its in-flight counters are its own); the supervisor deploys it after the
 * engines are up and the tokenizer is loaded:
 *
 * <pre>{@code
 * vertx.deployVerticle(new RouterVerticle(options, new ModelInfo(id, context, vocab), tokenizer))
 * }</pre>
 *
 * Stopping it stops its server, consumers, timers and engine connections (in-flight requests are
 * cut and their engine requests reset); the tokenizer stays the caller's to close.
 */
public final class RouterVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(RouterVerticle.class);

  private final RouterOptions options;
  private final Callable<ModelInfo> modelLoader;
  private final TextTokenizer tokenizer;
  private ModelInfo model;
  private final RouterMetrics metrics = new RouterMetrics();
  private EngineRegistry registry;
  private EngineClient client;
  private FleetSubscription fleet;
  private BusCompletionsEndpoint bus;
  private HttpServer server;

  /**
   * @param tokenizer the model's tokenizer for text prompts and echo; may be null, then only
   *     token-id prompts are accepted
   */
  public RouterVerticle(RouterOptions options, ModelInfo model, TextTokenizer tokenizer) {
    this(options, () -> model, tokenizer);
  }

  private RouterVerticle(RouterOptions options, Callable<ModelInfo> modelLoader,
      TextTokenizer tokenizer) {
    this.options = options;
    this.modelLoader = modelLoader;
    this.tokenizer = tokenizer;
  }

  /**
   * A router whose model limits are read from {@code modelDir} (off the event loop, at start).
   *
   * @param modelId the id reported in {@code /v1/models} (MLC: the model as given on the command line)
   * @param engineOverrides the engines' {@code --overrides}, which may shorten their context
   */
  public static RouterVerticle forModelDir(RouterOptions options, String modelId, Path modelDir,
      String engineOverrides, TextTokenizer tokenizer) {
    return new RouterVerticle(options, () -> ModelInfo.read(modelDir, modelId, engineOverrides),
        tokenizer);
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(modelLoader, false).compose(loaded -> {
      model = loaded;
      if (model.contextLength() == 0) {
        LOG.warn("model {}: context length and vocabulary unknown; engines check them", model.id());
      }
      return startServing();
    });
  }

  private Future<?> startServing() {
    registry = new EngineRegistry(System::currentTimeMillis);
    client = new EngineClient(vertx, (int) options.get(CONNECT_TIMEOUT).toMillis(),
        options.get(MAX_CONNECTIONS_PER_ENGINE));
    Dispatcher dispatcher = Dispatchers.create(options, registry, client, metrics);
    CompletionService service = new CompletionService(vertx, options, model, tokenizer, dispatcher, metrics);
    fleet = new FleetSubscription(vertx, registry);
    bus = new BusCompletionsEndpoint(vertx, service, metrics);
    server = vertx.createHttpServer(new HttpServerOptions().setHost(options.get(ROUTER_HOST))
        .setPort(options.get(ROUTER_PORT)).setTcpNoDelay(true))
        .requestHandler(RouterApi.create(vertx, options, model, service, registry, metrics));
    return fleet.start(5_000)
        .compose(v -> bus.start())
        .compose(v -> server.listen())
        .onSuccess(s -> {
          LOG.info("router listening on http://{}:{} ({} mode, model {})", options.get(ROUTER_HOST),
              s.actualPort(), options.get(ROUTER_MODE).wireName(), model.id());
        });
  }

  @Override
  public Future<?> stop() {
    return Future.join(server == null ? Future.succeededFuture() : server.close(),
        fleet == null ? Future.succeededFuture() : fleet.stop(),
        bus == null ? Future.succeededFuture() : bus.stop(),
        client == null ? Future.succeededFuture() : client.close());
  }

  /** The port the router listens on (useful with port 0). */
  public int actualPort() {
    return server.actualPort();
  }

  /** The registry (read-only use: tests and admin views). */
  public EngineRegistry registry() {
    return registry;
  }

  public RouterMetrics metrics() {
    return metrics;
  }
}
