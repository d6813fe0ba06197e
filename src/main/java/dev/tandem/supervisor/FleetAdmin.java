package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENABLE_PREFIX_CACHE;
import static dev.tandem.config.RouterConfig.ENGINE;
import static dev.tandem.config.RouterConfig.ENGINE_OVERRIDES;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.MODEL_LIB;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.config.ConfigException;
import dev.tandem.config.ConfigValidator;
import dev.tandem.config.EndpointConfig;
import dev.tandem.config.EngineKind;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.fleet.EngineLaunch;
import dev.tandem.fleet.EngineProfile;
import dev.tandem.fleet.EngineSpec;
import dev.tandem.fleet.EngineVerticle;
import dev.tandem.fleet.WorldInit;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Engines added and removed while the fleet runs, on {@link Addresses#fleetAdd()} and
 * {@link Addresses#fleetRemove()} (the router's admin API asks; it never imports the fleet). An
 * added engine gets the next id and the next device index, the fleet's model, flags and log
 * folder, and is answered once READY; a removed one is undeployed (its process stopped) and
 * forgotten. In disagg mode an added engine joins the fleet's KV world with the next PEs, and the
 * builtin world grows to take it; a world whose size was fixed when it formed (NVSHMEM's, or a
 * builtin one under --fixed-world) admits no member, and the answer (409) says a re-form is
 * needed. Owned by the supervisor and used on its context only.
 */
final class FleetAdmin {

  private static final Logger LOG = LoggerFactory.getLogger(FleetAdmin.class);

  private final Vertx vertx;
  private final RouterConfig config;
  private final EngineProfile profile;
  private final FleetSecrets secrets;
  private final FleetView view;
  /** The fleet's KV world as it is now (re-forms replace it), null before it formed. */
  private final Supplier<FleetWorld> world;
  /** The supervisor's list of engine deployments (torn down with it); added ones join it. */
  private final List<String> deployments;
  private final Map<Integer, String> deploymentOf = new LinkedHashMap<>();
  /** The EngineVerticle of each deployment: a removed engine's reply is its own last status. */
  private final Map<Integer, EngineVerticle> verticleOf = new LinkedHashMap<>();
  private final Map<Integer, EndpointConfig> endpoints = new LinkedHashMap<>();
  /** Ids are never reused: a removed engine's late events must not be taken for a new one's. */
  private int nextId;
  private MessageConsumer<JsonObject> adds;
  private MessageConsumer<JsonObject> removes;

  FleetAdmin(Vertx vertx, RouterConfig config, EngineProfile profile, FleetSecrets secrets,
      FleetView view, Supplier<FleetWorld> world, List<String> deployments) {
    this.vertx = vertx;
    this.config = config;
    this.profile = profile;
    this.secrets = secrets;
    this.view = view;
    this.world = world;
    this.deployments = deployments;
  }

  /** One of the fleet's initial engines and its deployment, as the supervisor deployed them. */
  void started(EngineVerticle engine, String deploymentId) {
    verticleOf.put(engine.spec().endpoint().id(), engine);
    started(engine.spec().endpoint(), deploymentId);
  }

  /**
   * An engine of the fleet and its deployment; {@code deploymentId} null for one a
   * {@code tandem node} runs.
   */
  void started(EndpointConfig endpoint, String deploymentId) {
    endpoints.put(endpoint.id(), endpoint);
    if (deploymentId != null) {
      deploymentOf.put(endpoint.id(), deploymentId);
    }
    nextId = Math.max(nextId, endpoint.id() + 1);
  }

  void start() {
    adds = vertx.eventBus().consumer(config.addresses().fleetAdd(), this::onAdd);
    removes = vertx.eventBus().consumer(config.addresses().fleetRemove(), this::onRemove);
  }

  void stop() {
    if (adds != null) {
      adds.unregister();
      removes.unregister();
    }
  }

  private void onAdd(Message<JsonObject> msg) {
    FleetWorld kvWorld = world.get();
    if (config.get(ROUTER_MODE) == RouterMode.DISAGG && (kvWorld == null || !kvWorld.admitsMembers())) {
      String name = config.get(ENGINE) == EngineKind.MLC ? "NVSHMEM world" : "fixed KV world (builtin)";
      msg.fail(409, "this disagg fleet's " + name + " was formed for " + config.totalPes()
          + " PEs and cannot admit another member: adding an engine needs the world re-formed"
          + " (restart the fleet with the new endpoint in --endpoint-ports)");
      return;
    }
    EndpointConfig endpoint;
    try {
      endpoint = endpoint(msg.body() == null ? new JsonObject() : msg.body());
    } catch (IllegalArgumentException | ClassCastException e) {
      msg.fail(400, e.getMessage());
      return;
    }
    endpoints.put(endpoint.id(), endpoint); // holds its id and port while it starts
    vertx.executeBlocking(() -> {
      ConfigValidator.checkFree(endpoint.describe(), endpoint.host(), endpoint.port());
      WorldInit init = kvWorld == null || kvWorld.init() == null ? null
          : kvWorld.initFor(endpoint.peStart() + endpoint.numGpus());
      EngineLaunch launch = new EngineLaunch(config.get(MODEL), config.get(MODEL_LIB), endpoint,
          config.get(ENABLE_PREFIX_CACHE), config.get(ENGINE_OVERRIDES), init);
      return secrets.apply(EngineSpec.of(profile, launch, Path.of(config.get(LOG_DIR)), config));
    }).compose(spec -> {
      EngineVerticle engine = new EngineVerticle(spec);
      LOG.info("adding {}", spec.describe());
      return vertx.deployVerticle(engine).map(id -> {
        deployments.add(id);
        deploymentOf.put(endpoint.id(), id);
        verticleOf.put(endpoint.id(), engine);
        return engine.statusJson();
      });
    }).onSuccess(msg::reply).onFailure(err -> {
      endpoints.remove(endpoint.id());
      LOG.warn("adding {} failed: {}", endpoint.describe(), err.getMessage());
      msg.fail(err instanceof ConfigException ? 409 : 500, err.getMessage());
    });
  }

  private void onRemove(Message<JsonObject> msg) {
    Integer id = msg.body() == null ? null : msg.body().getInteger("id");
    String deployment = id == null ? null : deploymentOf.get(id);
    if (deployment == null && id != null && endpoints.containsKey(id)) {
      msg.fail(409, endpoints.get(id).describe() + " runs on a tandem node: remove it from the"
          + " fleet's configuration and restart the router (the admin API removes the router's own"
          + " engines only)");
      return;
    }
    if (deployment == null) {
      msg.fail(404, "no engine " + id + " in this fleet (known: " + deploymentOf.keySet() + ")");
      return;
    }
    LOG.info("removing {}", endpoints.get(id).describe());
    vertx.undeploy(deployment).onComplete(ar -> {
      deploymentOf.remove(id);
      endpoints.remove(id);
      deployments.remove(deployment);
      // The verticle's own status: its STOPPED event may not have reached the view yet (when the
      // engine's context shares this thread, undeploy completes before the event is delivered).
      EngineVerticle engine = verticleOf.remove(id);
      JsonObject last = engine != null ? engine.statusJson() : view.latest(id);
      view.forget(id);
      if (ar.failed()) {
        msg.fail(500, "engine " + id + " did not stop cleanly: " + ar.cause().getMessage());
      } else {
        msg.reply(last == null ? new JsonObject().put("id", id) : last);
      }
    });
  }

  /** The next engine from a request body: the next id and device index, and a port not taken. */
  private EndpointConfig endpoint(JsonObject body) {
    Object portValue = body.getValue("port");
    if (!(portValue instanceof Integer port) || port < 1 || port > 65535) {
      throw new IllegalArgumentException("'port' (1..65535) is required, e.g. {\"port\": 8085}");
    }
    String host = body.getString("host", config.get(RouterConfig.ENDPOINT_HOSTS).get(0));
    int numGpus = body.getInteger("numGpus", 1);
    if (numGpus < 1) {
      throw new IllegalArgumentException("'numGpus' must be at least 1, not " + numGpus);
    }
    EngineRole role;
    try {
      role = EngineRole.valueOf(body.getString("role", "both").toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'role' is prefill, decode or both, not '"
          + body.getString("role") + "'");
    }
    if (port == config.get(ROUTER_PORT) && host.equals(config.get(ROUTER_HOST))) {
      throw new IllegalArgumentException("port " + port + " is the router's");
    }
    int pe = 0;
    for (EndpointConfig e : endpoints.values()) {
      if (e.port() == port && e.host().equals(host)) {
        throw new IllegalArgumentException("port " + port + " on " + host + " is " + e.describe()
            + "'s");
      }
      pe = Math.max(pe, e.peStart() + e.numGpus());
    }
    return new EndpointConfig(nextId++, host, port, numGpus, pe, role);
  }
}
