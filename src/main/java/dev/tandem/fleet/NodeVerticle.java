package dev.tandem.fleet;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.LateMessages;
import dev.tandem.bus.NodeAnnouncement;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code tandem node}: the engine-host agent of a clustered fleet. It announces on the bus which
 * endpoint hosts it serves ({@link NodeAnnouncement}, every {@link NodeAnnouncement#PERIOD}), and
 * runs one {@link EngineVerticle} for every endpoint a supervisor sends it on
 * {@link Addresses#nodeControl(String)}: the engine processes are this process's children (their
 * parent-death watch names this process), their health loop, restarts and load reports run here,
 * and everything they report goes on the bus as for the router's own engines.
 *
 * <p>A supervisor that sends an engine this node already runs with the same command adopts it
 * (a new router after the old one died); a different command (a new world's uid) restarts it.
 * An engine started with {@code stopWithOwner} is stopped once its supervisor's heartbeat is
 * silent for {@link NodeAnnouncement#LOST_AFTER} ({@code --stop-remote-engines}); the others keep
 * serving whatever happens to the router. Stopping the node stops every engine it runs.
 */
public final class NodeVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(NodeVerticle.class);

  private final String nodeId;
  private final List<String> hosts;
  private final Path logDir;
  private final Addresses bus;
  private final long pid = ProcessHandle.current().pid();
  /** By id; changed on the node's context only, read from anywhere (announcement()). */
  private final Map<Integer, Running> engines = new ConcurrentSkipListMap<>();
  /** Starts in progress, by engine id: a second order for the same engine waits for the first. */
  private final Map<Integer, Future<Running>> starting = new HashMap<>();
  /** When each supervisor's heartbeat was last heard (System.nanoTime). */
  private final Map<String, Long> ownersHeard = new HashMap<>();
  private long timer = -1;

  private record Running(String deployment, EngineVerticle engine, String owner,
      boolean stopWithOwner) {
    Running ownedBy(String newOwner, boolean stop) {
      return new Running(deployment, engine, newOwner, stop);
    }
  }

  /**
   * @param nodeId this node's id on the bus (unique per process)
   * @param hosts the endpoint hosts it serves
   * @param logDir where its engines' logs go
   * @param bus the fleet's addresses
   */
  public NodeVerticle(String nodeId, List<String> hosts, Path logDir, Addresses bus) {
    this.nodeId = nodeId;
    this.hosts = List.copyOf(hosts);
    this.logDir = logDir;
    this.bus = bus;
  }

  @Override
  public Future<?> start() {
    List<Future<Void>> registered = List.of(
        vertx.eventBus().<JsonObject>consumer(bus.nodeControl(nodeId), this::onControl).completion(),
        // broadcasts: one that reaches a stopping node means nothing to it
        LateMessages.dropQuietly(vertx.eventBus().consumer(bus.nodeQuery(), msg -> announce()))
            .completion(),
        LateMessages.dropQuietly(vertx.eventBus().<JsonObject>consumer(bus.supervisorHeartbeat(),
            msg -> {
              String owner = msg.body() == null ? null : msg.body().getString("owner");
              if (owner != null) {
                ownersHeard.put(owner, System.nanoTime());
              }
            })).completion());
    // Announced once the cluster can reach this node's consumers.
    return Future.all(registered).onSuccess(v -> {
      timer = vertx.setPeriodic(NodeAnnouncement.PERIOD.toMillis(), id -> {
        announce();
        stopOrphans();
      });
      announce();
      LOG.info("node {} of fleet '{}' serves endpoint hosts {}, engine logs in {}", nodeId,
          bus.fleet(), hosts, logDir.toAbsolutePath());
    });
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timer);
    List<Future<Void>> stops = new ArrayList<>();
    for (Running r : engines.values()) {
      stops.add(undeploy(r));
    }
    engines.clear();
    return Future.join(stops);
  }

  /** What this node publishes of itself. */
  public NodeAnnouncement announcement() {
    return new NodeAnnouncement(nodeId, hosts, pid, new ArrayList<>(engines.keySet()));
  }

  private void announce() {
    JsonObject me = announcement().toJson();
    vertx.eventBus().publish(bus.nodeAnnounce(), me);
    vertx.sharedData().<String, JsonObject>getAsyncMap(bus.nodeRegistry())
        .compose(map -> map.put(nodeId, me, NodeAnnouncement.LOST_AFTER.toMillis()))
        .onFailure(err -> LOG.debug("node registry: {}", err.toString()));
  }

  private void onControl(Message<JsonObject> message) {
    JsonObject body = message.body();
    String action = body == null ? "" : body.getString("action", "");
    switch (action) {
      case "start" -> start(message, body);
      case "stop" -> stopEngine(message, body.getInteger("id"));
      default -> message.fail(400, "unknown node action '" + action + "' (known: start, stop)");
    }
  }

  private void start(Message<JsonObject> message, JsonObject body) {
    EngineSpec spec;
    try {
      spec = withThisParent(EngineSpecJson.fromJson(body.getJsonObject("spec"), logDir));
    } catch (RuntimeException e) {
      message.fail(400, e.getMessage());
      return;
    }
    String host = spec.endpoint().host();
    if (!hosts.contains(host)) {
      message.fail(400, "node " + nodeId + " serves hosts " + hosts + ", not " + host);
      return;
    }
    String owner = body.getString("owner");
    boolean stopWithOwner = body.getBoolean("stopWithOwner", false);
    int id = spec.endpoint().id();
    if (owner != null) {
      ownersHeard.put(owner, System.nanoTime());
    }
    Future<Running> pending = starting.get(id);
    Future<Running> ran = pending != null ? pending.recover(err -> Future.succeededFuture(null))
        .compose(v -> runOrAdopt(id, spec, owner, stopWithOwner))
        : runOrAdopt(id, spec, owner, stopWithOwner);
    starting.put(id, ran);
    ran.onComplete(ar -> {
      if (starting.get(id) == ran) {
        starting.remove(id);
      }
      if (ar.succeeded()) {
        message.reply(ar.result().engine().statusJson());
      } else {
        message.fail(500, ar.cause().getMessage());
      }
    });
  }

  private Future<Running> runOrAdopt(int id, EngineSpec spec, String owner, boolean stopWithOwner) {
    Running running = engines.get(id);
    if (running != null && running.engine().spec().command().equals(spec.command())
        && running.engine().spec().endpoint().equals(spec.endpoint()) && running.engine().live()) {
      Running adopted = running.ownedBy(owner, stopWithOwner);
      engines.put(id, adopted);
      LOG.info("{}: adopted by supervisor {} (already running here)", spec.describe(), owner);
      return Future.succeededFuture(adopted);
    }
    Future<Void> before = Future.succeededFuture();
    if (running != null) {
      LOG.info("{}: a new command (another world or configuration): restarting it",
          spec.describe());
      engines.remove(id);
      before = undeploy(running);
    }
    EngineVerticle engine = new EngineVerticle(spec);
    return before.compose(v -> vertx.deployVerticle(engine)).map(deployment -> {
      Running started = new Running(deployment, engine, owner, stopWithOwner);
      engines.put(id, started);
      announce();
      return started;
    });
  }

  private void stopEngine(Message<JsonObject> message, Integer id) {
    Running running = id == null ? null : engines.remove(id);
    if (running == null) {
      message.fail(404, "node " + nodeId + " runs no engine " + id);
      return;
    }
    undeploy(running).onComplete(ar -> {
      announce();
      message.reply(running.engine().statusJson());
    });
  }

  /** Engines whose supervisor asked to take them along and whose heartbeat went silent. */
  private void stopOrphans() {
    long now = System.nanoTime();
    for (Running r : new ArrayList<>(engines.values())) {
      Long heard = r.owner() == null ? null : ownersHeard.get(r.owner());
      if (r.stopWithOwner() && (heard == null
          || now - heard > NodeAnnouncement.LOST_AFTER.toNanos())) {
        LOG.warn("{}: its router (supervisor {}) is gone and asked for its engines to stop with"
            + " it: stopping", r.engine().spec().describe(), r.owner());
        engines.remove(r.engine().spec().endpoint().id());
        undeploy(r).onComplete(ar -> announce());
      }
    }
  }

  private Future<Void> undeploy(Running running) {
    return vertx.undeploy(running.deployment()).recover(err -> Future.succeededFuture());
  }

  /** The engine watches this process, not the router that sent the command. */
  private EngineSpec withThisParent(EngineSpec spec) {
    if (!spec.command().extraEnv().containsKey(BuiltinProfile.PARENT_PID_ENV)) {
      return spec;
    }
    return spec.withCommand(spec.command().withEnv(Map.of(BuiltinProfile.PARENT_PID_ENV,
        Long.toString(pid))));
  }
}
