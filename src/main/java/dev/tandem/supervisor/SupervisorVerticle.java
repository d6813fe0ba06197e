package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENABLE_PREFIX_CACHE;
import static dev.tandem.config.RouterConfig.ENGINE;
import static dev.tandem.config.RouterConfig.ENGINE_CDS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.ENGINE_OVERRIDES;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.MODEL_LIB;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.TOKENIZER_CACHE_MB;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.bus.LateMessages;
import dev.tandem.bus.NodeAnnouncement;
import dev.tandem.config.ClusterOptions;
import dev.tandem.config.ConfigValidator;
import dev.tandem.config.EndpointConfig;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.EngineKind;
import dev.tandem.bus.Addresses;
import dev.tandem.fleet.BuiltinProfile;
import dev.tandem.fleet.EngineCds;
import dev.tandem.fleet.EngineLaunch;
import dev.tandem.fleet.EngineProfile;
import dev.tandem.fleet.EngineSpec;
import dev.tandem.fleet.EngineVerticle;
import dev.tandem.fleet.TandemClasspath;
import dev.tandem.router.RouterVerticle;
import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MLC's {@code Router.__init__}, done properly. {@link #start()}, in the seed's order: validate the
 * configuration; form the KV world (builtin: a world root here; mlc: an NVSHMEM uid; round-robin:
 * none); deploy one {@link EngineVerticle} per endpoint, all at once, and wait for all of them
 * with a deadline ({@link EngineStarts}: a world forms only when every member has joined); load
 * the tokenizer; deploy the router verticle. Any failure stops whatever was started and
 * fails the start with the failing engine's message. Undeploying stops everything.
 *
 * <p>With {@code --cluster}, the endpoints of hosts that {@code tandem node}s serve (or that are
 * not this machine's) are run by those nodes ({@link NodePlacement}, {@link RemoteEngines});
 * they outlive this verticle unless {@code --stop-remote-engines}.
 *
 * <p>Answers {@link Addresses#fleetQuery()} with {@code {"engines": [status, ...]}}, the latest
 * status each engine published on {@link Addresses#engineStatus()}.
 *
 * <p>Deployable from the Vert.x launcher with the JSON configuration as verticle config:
 * {@code java -cp tandem.jar io.vertx.launcher.application.VertxApplication
 * dev.tandem.supervisor.SupervisorVerticle -conf conf/router.json}.
 */
public final class SupervisorVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(SupervisorVerticle.class);
  /** On a cluster, how long the nodes have to announce themselves before endpoints are placed. */
  static final Duration NODE_DISCOVERY = NodeAnnouncement.PERIOD.plusMillis(500);

  private final RouterConfig given;
  private final RouterVerticleFactory givenFactory;
  private final TokenizerLoader tokenizerLoader;
  private final EngineProfile givenProfile;
  private final FleetView fleet = new FleetView();
  private RouterConfig config;
  private FleetWorld world;
  /** Re-forms a world that admits no late member when one of its engines dies; null otherwise. */
  private WorldHealer healer;
  private EngineCds cds;
  private TextTokenizer tokenizer;
  private final List<String> engineDeployments = new ArrayList<>();
  private String routerDeployment;
  /** The router deployed, once it is (read by {@link #drain} from a shutdown hook). */
  private volatile Deployable router;
  private FleetAdmin admin;
  private FleetSecrets secrets;
  /** On a cluster: the fleet's tandem nodes, and the engines they run for this fleet. */
  private NodeDirectory nodes;
  private RemoteEngines remote;
  /** Endpoints a tandem node runs (their host is served by one, or is not this machine's). */
  private final Set<Integer> remoteIds = new HashSet<>();
  private Future<Void> stopping;

  /** For the Vert.x launcher: the configuration comes from {@code config()} (the -conf JSON). */
  public SupervisorVerticle() {
    this(null, null, TokenizerLoader.djl(), null);
  }

  public SupervisorVerticle(RouterConfig config) {
    this(config, null, TokenizerLoader.djl(), null);
  }

  /**
   * @param config the configuration, or null to read {@code config()}
   * @param routerFactory the router to deploy, or null for {@link RouterVerticleFactory#TANDEM}
   * @param tokenizerLoader how to load the model folder's tokenizer
   * @param profile how engines are launched, or null for {@link EngineProfile#of} the config
   *     (tests pass a fault-injecting one)
   */
  public SupervisorVerticle(RouterConfig config, RouterVerticleFactory routerFactory,
      TokenizerLoader tokenizerLoader, EngineProfile profile) {
    this.given = config == null ? null : new RouterConfig(config);
    this.givenFactory = routerFactory;
    this.tokenizerLoader = tokenizerLoader;
    this.givenProfile = profile;
  }

  @Override
  public Future<?> start() {
    long began = System.nanoTime();
    try {
      config = given != null ? given : RouterConfig.fromJson(config());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    if (config.get(ClusterOptions.ATTACH)) {
      return attach(began);
    }
    return configure()
        .compose(v -> findNodes())
        .compose(v -> formWorld())
        .compose(v -> startEngines())
        .compose(v -> loadTokenizer())
        .compose(v -> deployRouter())
        .onSuccess(v -> watchWorld())
        .andThen(ar -> {
          if (ar.succeeded() && admin != null) {
            admin.start(); // engines may be added and removed from now on (the router's admin API)
          }
        })
        .onSuccess(v -> LOG.info("fleet of {} engine(s) up and router on http://{}:{} after {} s",
            engineDeployments.size(), config.get(ROUTER_HOST), config.get(ROUTER_PORT),
            seconds(began)))
        .recover(err -> tearDown().transform(v -> Future.failedFuture(err)));
  }

  @Override
  public Future<?> stop() {
    return tearDown();
  }

  /**
   * {@code --attach}: a router only, for a fleet another router's supervisor runs on the cluster;
   * the router learns its engines from the bus as it always does. No engine, no world, no fleet
   * view or admin consumers of its own (the fleet's supervisor answers those).
   */
  private Future<?> attach(long began) {
    try {
      ConfigValidator.validate(config);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return vertx.executeBlocking(() -> {
      ConfigValidator.checkEnvironment(config);
      return null;
    }).compose(v -> loadTokenizer())
        .compose(v -> deployRouter())
        .onSuccess(v -> LOG.info("router of fleet '{}' attached on http://{}:{} after {} s; its"
            + " engines come from the bus", config.addresses().fleet(), config.get(ROUTER_HOST),
            config.get(ROUTER_PORT), seconds(began)))
        .recover(err -> tearDown().transform(x -> Future.failedFuture(err)));
  }

  private Future<Void> configure() {
    try {
      config = given != null ? given : RouterConfig.fromJson(config());
      ConfigValidator.validate(config);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    LateMessages.dropQuietly(vertx.eventBus().<JsonObject>consumer(config.addresses().engineStatus(),
        msg -> fleet.update(msg.body())));
    vertx.eventBus().consumer(config.addresses().fleetQuery(), msg -> msg.reply(fleet.toJson()
        .put("mode", config.get(ROUTER_MODE).wireName())
        .put("engine", config.get(ENGINE).wireName())
        .put("world", world == null ? null : world.toJson())));
    vertx.eventBus().consumer(config.addresses().fleetSecret(), msg -> msg.reply(
        new JsonObject().put("secret", secrets == null ? null : secrets.secret())));
    // File system and port checks block: off the event loop.
    return vertx.executeBlocking(() -> {
      ConfigValidator.checkEnvironment(config);
      return FleetSecrets.load(config);
    }).map(loaded -> {
      secrets = loaded;
      return null;
    });
  }

  /**
   * On a cluster: listens to the fleet's nodes for {@link #NODE_DISCOVERY}, then marks every
   * endpoint whose host a node serves, or that is not an address of this machine, as a node's.
   */
  private Future<Void> findNodes() {
    if (!config.get(ClusterOptions.CLUSTER)) {
      return Future.succeededFuture();
    }
    nodes = new NodeDirectory(vertx, config.addresses());
    Future<Void> listening = nodes.start();
    remote = new RemoteEngines(vertx, config.addresses(), nodes, fleet,
        config.get(ClusterOptions.STOP_REMOTE_ENGINES), config.get(STARTUP_TIMEOUT));
    return NodePlacement.onNodes(vertx, config.endpoints(), nodes, listening, NODE_DISCOVERY)
        .map(onNodes -> {
          remoteIds.addAll(onNodes);
          if (!remoteIds.isEmpty()) {
            LOG.info("engine(s) {} run on tandem nodes (their hosts are served by one, or are not"
                + " this machine's)", remoteIds);
          }
          return null;
        });
  }

  private Future<Void> formWorld() {
    return FleetWorld.form(vertx, config, NodePlacement.worldRootHost(config, remoteIds)).map(formed -> {
      world = formed;
      if (formed.init() != null) {
        LOG.info("world formed for {} PE(s)", formed.init().npes());
      }
      return null;
    });
  }

  private Future<Void> startEngines() {
    // Building the commands looks at files (class path, class-data archive): off the event loop.
    return vertx.executeBlocking(this::engineSpecs).compose(specs -> EngineStarts.deploy(vertx,
        config, specs, remoteIds, remote, admin, engineDeployments));
  }

  private List<EngineSpec> engineSpecs() {
    if (config.get(ENGINE) != EngineKind.MLC && config.get(ENGINE_CDS)) {
      cds = EngineCds.in(Path.of(System.getProperty("java.io.tmpdir"), "tandem-cds"),
          TandemClasspath.resolve(),
          BuiltinProfile.jvmOptions(config.get(ENGINE), config.get(ENGINE_JVM_OPTS)));
    }
    EngineProfile profile = givenProfile != null ? givenProfile : EngineProfile.of(config, cds);
    // A node's machine has no class-data archive of ours: its engines start without one.
    EngineProfile onNodes = givenProfile != null || cds == null ? profile
        : EngineProfile.of(config, null);
    admin = new FleetAdmin(vertx, config, profile, secrets, fleet, () -> world, engineDeployments);
    List<EngineSpec> specs = new ArrayList<>();
    for (EndpointConfig endpoint : config.endpoints()) {
      EngineLaunch launch = new EngineLaunch(config.get(MODEL), config.get(MODEL_LIB), endpoint,
          config.get(ENABLE_PREFIX_CACHE), config.get(ENGINE_OVERRIDES),
          world == null ? null : world.init());
      specs.add(secrets.apply(EngineSpec.of(remoteIds.contains(endpoint.id()) ? onNodes : profile,
          launch, Path.of(config.get(LOG_DIR)), config)));
    }
    return specs;
  }

  private Future<Void> loadTokenizer() {
    Path model = Path.of(config.get(MODEL));
    long keptChars = DjlTokenizer.keptChars(config.get(TOKENIZER_CACHE_MB));
    return vertx.executeBlocking(() -> tokenizerLoader.load(model, keptChars))
        .recover(err -> Future.failedFuture(new IllegalStateException("cannot load the tokenizer of "
            + model.toAbsolutePath() + ": " + err.getMessage(), err)))
        .map(loaded -> {
          tokenizer = loaded;
          return null;
        });
  }

  private Future<Void> deployRouter() {
    RouterVerticleFactory factory = givenFactory != null ? givenFactory : RouterVerticleFactory.TANDEM;
    Deployable created = factory.create(new RouterConfig(config), tokenizer);
    return vertx.deployVerticle(created)
        .map(id -> {
          routerDeployment = id;
          router = created;
          return null;
        });
  }

  /**
   * Lets the router finish the requests it has before anything stops ({@link RouterVerticle#drain}:
   * new requests refused meanwhile); completes at once when no Tandem router is running. Call it
   * before closing Vert.x, which undeploys the engines alongside the router. Any thread.
   */
  public Future<Void> drain() {
    return router instanceof RouterVerticle r ? r.drain() : Future.succeededFuture();
  }

  /** A fixed world (NVSHMEM's, or --fixed-world) is re-formed when one of its engines dies. */
  private void watchWorld() {
    if (world != null && world.init() != null && world.fixed()) {
      healer = new WorldHealer(vertx, config, world, healed -> world = healed);
      healer.start(fleet.toJson().getJsonArray("engines"));
      LOG.info("the world admits no late member: a dead engine makes it re-form with a new uid");
    }
  }

  /** Router first (no new requests), then every engine at once, then the world and tokenizer. */
  private Future<Void> tearDown() {
    if (stopping != null) {
      return stopping;
    }
    if (admin != null) {
      admin.stop();
    }
    if (healer != null) {
      healer.stop();
    }
    Future<Void> routerGone = routerDeployment == null ? Future.succeededFuture()
        : undeploy(routerDeployment);
    stopping = routerGone
        .compose(v -> {
          List<Future<Void>> stops = new ArrayList<>(engineDeployments.stream().map(this::undeploy)
              .toList());
          if (remote != null) {
            stops.add(remote.stop());
          }
          return Future.join(stops);
        })
        .andThen(v -> {
          if (nodes != null) {
            nodes.stop();
          }
        })
        .transform(v -> vertx.executeBlocking(() -> {
          if (world != null) {
            world.close();
          }
          if (tokenizer != null) {
            tokenizer.close();
          }
          if (cds != null) {
            cds.publish();
          }
          return null;
        }))
        .mapEmpty();
    return stopping;
  }

  /** Undeploys a child; one that Vert.x already undeployed along with this verticle is no error. */
  private Future<Void> undeploy(String deploymentId) {
    return vertx.undeploy(deploymentId).recover(err -> {
      LOG.debug("undeploy {}: {}", deploymentId, err.toString());
      return Future.succeededFuture();
    });
  }

  private static String seconds(long sinceNanos) {
    return String.format(Locale.ROOT, "%.1f", (System.nanoTime() - sinceNanos) / 1e9);
  }
}
