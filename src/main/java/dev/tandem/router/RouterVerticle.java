package dev.tandem.router;

import static dev.tandem.config.RouterOptions.CHAT_TEMPLATE;
import static dev.tandem.config.RouterOptions.CONNECT_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_CONNECTIONS_PER_ENGINE;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static dev.tandem.config.RouterOptions.TOOL_CALL_PARSER;

import dev.tandem.chat.ChatSetup;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.api.BusCompletionsEndpoint;
import dev.tandem.router.api.ChatService;
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
 * The OpenAI front door of the fleet: HTTP API and event-bus completions and chat completions, an
 * engine registry fed only by the fleet's status events, and the dispatcher of the configured
 * mode. The chat template ({@code --chat-template}, else the model folder's) is loaded at start,
 * off the event loop. Deploy one
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
  /** Where the model's chat template and special tokens are; null when not known. */
  private final Path modelDir;
  private ModelInfo model;
  private final RouterMetrics metrics = new RouterMetrics();
  private EngineRegistry registry;
  private EngineClient client;
  private FleetSubscription fleet;
  private BusCompletionsEndpoint bus;
  private BusCompletionsEndpoint chatBus;
  private HttpServer server;

  /**
   * @param tokenizer the model's tokenizer for text prompts, echo and chat; may be null, then
   *     only token-id prompts are accepted
   */
  public RouterVerticle(RouterOptions options, ModelInfo model, TextTokenizer tokenizer) {
    this(options, () -> model, tokenizer, null);
  }

  private RouterVerticle(RouterOptions options, Callable<ModelInfo> modelLoader,
      TextTokenizer tokenizer, Path modelDir) {
    this.options = options;
    this.modelLoader = modelLoader;
    this.tokenizer = tokenizer;
    this.modelDir = modelDir;
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
        tokenizer, modelDir);
  }

  @Override
  public Future<?> start() {
    Future<ChatSetup> chat = vertx.executeBlocking(this::loadChat, false);
    return vertx.executeBlocking(modelLoader, false).compose(loaded -> {
      model = loaded;
      if (model.contextLength() == 0) {
        LOG.warn("model {}: context length and vocabulary unknown; engines check them", model.id());
      }
      return chat;
    }).compose(this::startServing);
  }

  /** The chat template and tool-call parser (blocking: file I/O and template parsing). */
  private ChatSetup loadChat() throws Exception {
    String file = options.get(CHAT_TEMPLATE);
    ChatSetup chat;
    try {
      chat = ChatSetup.load(file == null ? null : Path.of(file), modelDir, options.get(TOOL_CALL_PARSER));
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot load the chat template"
          + (file != null ? " --chat-template " + file : "") + ": " + e.getMessage(), e);
    }
    if (chat.template() == null) {
      LOG.warn("no chat completions: {}", chat.missing());
    } else {
      LOG.info("chat template: {}", file != null ? file : "the model's own");
    }
    return chat;
  }

  private Future<?> startServing(ChatSetup chat) {
    registry = new EngineRegistry(System::currentTimeMillis);
    client = new EngineClient(vertx, (int) options.get(CONNECT_TIMEOUT).toMillis(),
        options.get(MAX_CONNECTIONS_PER_ENGINE));
    Dispatcher dispatcher = Dispatchers.create(options, registry, client, metrics);
    CompletionService service = new CompletionService(vertx, options, model, tokenizer, dispatcher,
        metrics, registry::statuses);
    ChatService chatService = new ChatService(vertx, service, tokenizer, chat);
    fleet = new FleetSubscription(vertx, registry);
    bus = BusCompletionsEndpoint.completions(vertx, service, metrics);
    chatBus = BusCompletionsEndpoint.chat(vertx, chatService, metrics);
    server = vertx.createHttpServer(new HttpServerOptions().setHost(options.get(ROUTER_HOST))
        .setPort(options.get(ROUTER_PORT)).setTcpNoDelay(true))
        .requestHandler(RouterApi.create(vertx, options, model, service, chatService, registry,
            metrics));
    return fleet.start(5_000)
        .compose(v -> bus.start())
        .compose(v -> chatBus.start())
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
        chatBus == null ? Future.succeededFuture() : chatBus.stop(),
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
