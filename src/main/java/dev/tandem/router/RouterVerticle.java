package dev.tandem.router;

import static dev.tandem.config.RouterOptions.ADMIN_KEY_FILE;
import static dev.tandem.config.RouterOptions.ADMIN_PORT;
import static dev.tandem.config.RouterOptions.API_KEY_FILE;
import static dev.tandem.config.RouterOptions.CHAT_TEMPLATE;
import static dev.tandem.config.RouterOptions.CONNECT_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_CONNECTIONS_PER_ENGINE;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_LOOPS;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ACCESS_LOG;
import static dev.tandem.config.RouterOptions.DRAIN_TIMEOUT;
import static dev.tandem.config.RouterOptions.REMOVE_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static dev.tandem.config.RouterOptions.TOOL_CALL_PARSER;

import dev.tandem.chat.ChatSetup;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.access.AccessControl;
import dev.tandem.router.access.ApiKeys;
import dev.tandem.router.admin.AdminRoutes;
import dev.tandem.router.admission.Admission;
import dev.tandem.router.metrics.AccessLog;
import dev.tandem.router.api.BusCompletionsEndpoint;
import dev.tandem.router.api.ChatService;
import dev.tandem.router.api.CompletionService;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.router.api.RequestRunner;
import dev.tandem.router.dashboard.DashboardFeed;
import dev.tandem.router.api.RouterApi;
import dev.tandem.router.api.RouterApi.Routes;
import dev.tandem.router.dispatch.Dispatcher;
import dev.tandem.router.dispatch.Dispatchers;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.registry.EngineRegistry;
import dev.tandem.router.registry.FleetSubscription;
import dev.tandem.router.upstream.EngineClient;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import dev.tandem.api.HttpServers;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenAI front door of the fleet: HTTP API and event-bus completions and chat completions, an
 * engine registry fed only by the fleet's status events, and the dispatcher of the configured
 * mode. The chat template ({@code --chat-template}, else the model folder's) is loaded at start,
 * off the event loop. The HTTP API runs on {@code --router-loops} event loops
 * ({@link ApiServerVerticle}); this verticle's own context applies the fleet's events and serves
 * the event bus and the admin port. Deploy one instance per router (its in-flight counters are
 * its own); the supervisor deploys it after the engines are up and the tokenizer is loaded:
 *
 * <pre>{@code
 * vertx.deployVerticle(new RouterVerticle(options, new ModelInfo(id, context, vocab), tokenizer))
 * }</pre>
 *
 * Stopping it stops its servers, consumers, timers and engine connections (in-flight requests are
 * cut and their engine requests reset: {@link #drain} first lets them finish); the tokenizer stays
 * the caller's to close.
 */
public final class RouterVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(RouterVerticle.class);
  /** API keys from the environment, as lines of the key file separated by commas. */
  public static final String KEYS_ENV = "TANDEM_API_KEYS";
  private static final long DASHBOARD_PERIOD_MS = 1_000;

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
  private DashboardFeed feed;
  /** {@code --access-log}, or null. */
  private AccessLog accessLog;
  /** Admission for every transport; null until started. */
  private volatile Admission admission;
  /** The API's servers, one per event loop, in the order they started listening. */
  private final List<HttpServer> apiServers = new CopyOnWriteArrayList<>();
  /** The admin routes' own server (--admin-port), or null when they share the API's. */
  private HttpServer adminServer;

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
    Future<AccessControl> access = vertx.executeBlocking(this::loadKeys, false);
    Future<AccessLog> log = vertx.executeBlocking(this::openAccessLog, false);
    return vertx.executeBlocking(modelLoader, false).compose(loaded -> {
      model = loaded;
      if (model.contextLength() == 0) {
        LOG.warn("model {}: context length and vocabulary unknown; engines check them", model.id());
      }
      return Future.all(chat, access, log);
    }).compose(v -> startServing(chat.result(), access.result()));
  }

  /** {@code --access-log}'s file (blocking: it is opened), or null without one. */
  private AccessLog openAccessLog() {
    String target = options.get(ACCESS_LOG);
    if (target == null) {
      return null;
    }
    try {
      accessLog = AccessLog.open(target);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("cannot open --access-log " + target + ": " + e, e);
    }
    metrics.accessLog(accessLog);
    LOG.info("access log: {}", accessLog.target());
    return accessLog;
  }

  /** The API and admin keys (blocking: file I/O); warns where the router is open to a network. */
  private AccessControl loadKeys() throws java.io.IOException {
    String userFile = options.get(API_KEY_FILE);
    String adminFile = options.get(ADMIN_KEY_FILE);
    ApiKeys user;
    ApiKeys admin;
    try {
      user = ApiKeys.load(userFile == null ? null : Path.of(userFile), System.getenv(KEYS_ENV), false);
      admin = ApiKeys.load(adminFile == null ? null : Path.of(adminFile), null, true);
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot read the API keys: " + e.getMessage(), e);
    }
    AccessControl access = new AccessControl(user, admin, metrics.ops()::rejected);
    String host = options.get(ROUTER_HOST);
    boolean loopback = host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
    if (!loopback && (access.apiOpen() || access.adminOpen())) {
      LOG.warn("listening on {} without {}: anyone who reaches this port may call {}; give"
          + " --api-key-file and --admin-key-file (docs/operations.md)", host,
          access.apiOpen() ? "API keys" : "admin keys", access.apiOpen() ? "/v1/*" : "/admin/*,"
          + " /metrics and /dashboard");
    }
    LOG.info("keys: {} API key(s), {} admin key(s)", user.size(), admin.size());
    return access;
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

  private Future<?> startServing(ChatSetup chat, AccessControl access) {
    registry = new EngineRegistry(System::currentTimeMillis);
    client = new EngineClient(vertx, (int) options.get(CONNECT_TIMEOUT).toMillis(),
        options.get(MAX_CONNECTIONS_PER_ENGINE));
    client.observe(metrics.ops()::engineCall);
    Dispatcher dispatcher = Dispatchers.create(options, registry, client, metrics);
    CompletionService service = new CompletionService(vertx, options, model, tokenizer, dispatcher,
        metrics, registry::statuses);
    ChatService chatService = new ChatService(vertx, service, tokenizer, chat);
    if (tokenizer != null && tokenizer.keptBeginnings() != null) {
      metrics.promptBeginnings(() -> tokenizer.keptBeginnings().found(),
          () -> tokenizer.keptBeginnings().missed(), () -> tokenizer.keptBeginnings().chars());
    }
    admission = new Admission(vertx, options, metrics.ops()::rejected);
    metrics.ops().admission(admission.gate()::running, admission.gate()::queued);
    RequestRunner runner = new RequestRunner(access, admission, metrics.ops(),
        options.get(ROUTER_MODE).wireName(), accessLog);
    AdminRoutes admin = new AdminRoutes(vertx, registry, admission.gate(), metrics::reservationsOpen,
        options.get(REMOVE_GRACE), options.addresses());
    feed = new DashboardFeed(vertx, registry, admission.gate(), metrics);
    fleet = new FleetSubscription(vertx, registry, options.addresses());
    bus = BusCompletionsEndpoint.completions(vertx, options.addresses(), service, metrics, runner);
    chatBus = BusCompletionsEndpoint.chat(vertx, options.addresses(), chatService, metrics, runner);
    Integer adminPort = options.get(ADMIN_PORT);
    HttpServerOptions api = HttpServers.options(options.get(ROUTER_HOST),
        ApiServerVerticle.sharedPort(options.get(ROUTER_PORT)));
    Supplier<Handler<HttpServerRequest>> handlers = () -> RouterApi.create(vertx, options, model,
        service, chatService, registry, metrics, runner, admin, feed,
        adminPort == null ? Routes.ALL : Routes.PUBLIC);
    if (adminPort != null) {
      adminServer = vertx.createHttpServer(HttpServers.options(options.get(ROUTER_HOST), adminPort))
          .requestHandler(RouterApi.create(vertx, options, model, service, chatService, registry,
              metrics, runner, admin, feed, Routes.ADMIN));
    }
    feed.start(DASHBOARD_PERIOD_MS);
    return learnFleetSecret()
        .compose(v -> fleet.start(5_000))
        .compose(v -> bus.start())
        .compose(v -> chatBus.start())
        .compose(v -> adminServer == null ? Future.succeededFuture() : adminServer.listen()
            .onSuccess(a -> LOG.info("admin routes on http://{}:{}/ (/admin, /metrics, /dashboard)",
                options.get(ROUTER_HOST), a.actualPort())))
        .compose(v -> listen(api, handlers))
        .onSuccess(s -> {
          LOG.info("router listening on http://{}:{} ({} mode, model {}, {} event loop{})",
              options.get(ROUTER_HOST), actualPort(), options.get(ROUTER_MODE).wireName(),
              model.id(), apiServers.size(), apiServers.size() == 1 ? "" : "s");
        });
  }

  /** The API's servers, one per event loop ({@code --router-loops}; 0: one per core). */
  private Future<?> listen(HttpServerOptions api, Supplier<Handler<HttpServerRequest>> handlers) {
    int loops = options.get(ROUTER_LOOPS);
    if (loops == 0) {
      loops = Runtime.getRuntime().availableProcessors();
    }
    return vertx.deployVerticle(() -> new ApiServerVerticle(api, handlers, apiServers),
        new DeploymentOptions().setInstances(loops));
  }

  /**
   * The fleet's secret from its supervisor, sent with every engine call; a fleet without a
   * supervisor on the bus (tests that publish engines themselves) has none.
   */
  private Future<Void> learnFleetSecret() {
    return vertx.eventBus().<JsonObject>request(options.addresses().fleetSecret(), "",
            new DeliveryOptions().setSendTimeout(5_000))
        .map(reply -> {
          client.fleetSecret(reply.body().getString("secret"));
          return (Void) null;
        })
        .recover(err -> {
          LOG.debug("no fleet secret ({}): engine calls carry none", err.getMessage());
          return Future.succeededFuture();
        });
  }

  /**
   * Begins to stop without cutting a request: from now on new requests get a 503 ({@code
   * shutting_down}) and {@code /ready} says {@code "stopping": true}, while the requests it has
   * run to their end, for up to {@code --drain-timeout}. Completes then; the engines serve until
   * it does, and the caller stops everything afterwards (closing Vert.x undeploys the engines
   * alongside the router, so it must come after this). Any thread.
   */
  public Future<Void> drain() {
    Admission admitting = admission;
    if (admitting == null) {
      return Future.succeededFuture();
    }
    Duration timeout = options.get(DRAIN_TIMEOUT);
    int open = admitting.open();
    if (open > 0) {
      LOG.info("stopping: {} request(s) in flight may take up to {} s to finish; new ones get 503",
          open, timeout.toMillis() / 1000.0);
    }
    return admitting.drain(timeout).map(left -> {
      if (left > 0) {
        LOG.warn("stopping: {} request(s) still in flight after --drain-timeout {} s are cut",
            left, timeout.toMillis() / 1000.0);
      } else if (open > 0) {
        LOG.info("stopping: every request in flight finished");
      }
      return null;
    });
  }

  @Override
  public Future<?> stop() {
    if (feed != null) {
      feed.stop();
    }
    // the API servers are a child deployment: Vert.x has undeployed them before this runs
    return Future.join(adminServer == null ? Future.succeededFuture() : adminServer.close(),
        fleet == null ? Future.succeededFuture() : fleet.stop(),
        bus == null ? Future.succeededFuture() : bus.stop(),
        chatBus == null ? Future.succeededFuture() : chatBus.stop(),
        client == null ? Future.succeededFuture() : client.close())
        .eventually(() -> accessLog == null ? Future.succeededFuture()
            : vertx.executeBlocking(() -> {
              accessLog.close(5_000); // the lines of the last requests, written and flushed
              return null;
            }, false));
  }

  /** The port the router listens on (useful with port 0). */
  public int actualPort() {
    return apiServers.get(0).actualPort();
  }

  /** The port of the admin routes: --admin-port's, else the router's own. */
  public int actualAdminPort() {
    return adminServer != null ? adminServer.actualPort() : actualPort();
  }

  /** The registry (read-only use: tests and admin views). */
  public EngineRegistry registry() {
    return registry;
  }

  public RouterMetrics metrics() {
    return metrics;
  }
}
