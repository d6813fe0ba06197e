package dev.tandem.supervisor;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.NodeAnnouncement;
import dev.tandem.fleet.EngineSpec;
import dev.tandem.fleet.EngineSpecJson;
import dev.tandem.fleet.EngineStartException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The supervisor's engines that run on {@code tandem node}s: each endpoint goes to the node that
 * serves its host (waiting, with a progress line, until one announces itself), which runs the
 * engine as its child and reports it on the bus. When a node is gone its engines are published
 * out of rotation at once (UNHEALTHY, one generation on: the process is gone) and started again on
 * the next node that serves their host. A heartbeat tells the nodes this supervisor is alive:
 * with {@code --stop-remote-engines} they stop its engines when it goes silent, otherwise the
 * engines outlive the router and the next router adopts them. Used on the supervisor's context.
 */
final class RemoteEngines {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteEngines.class);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);
  private static final Duration RETRY_AFTER = Duration.ofSeconds(2);
  private static final int RETRIES = 5;
  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  private final Vertx vertx;
  private final Addresses bus;
  private final NodeDirectory nodes;
  private final FleetView fleet;
  private final boolean stopWithOwner;
  private final Duration startupTimeout;
  private final String owner = UUID.randomUUID().toString();
  private final Map<Integer, Remote> remotes = new TreeMap<>();
  private long heartbeat = -1;
  private boolean stopped;

  /** One endpoint that a node runs (or will). */
  private static final class Remote {
    final EngineSpec spec;
    final Promise<Void> first = Promise.promise();
    final long since = System.nanoTime();
    /** The node running it now; null while it waits for one. */
    String nodeId;
    int failures;
    boolean aborted;

    Remote(EngineSpec spec) {
      this.spec = spec;
    }
  }

  RemoteEngines(Vertx vertx, Addresses bus, NodeDirectory nodes, FleetView fleet,
      boolean stopWithOwner, Duration startupTimeout) {
    this.vertx = vertx;
    this.bus = bus;
    this.nodes = nodes;
    this.fleet = fleet;
    this.stopWithOwner = stopWithOwner;
    this.startupTimeout = startupTimeout;
    nodes.onNew(this::nodeAppeared);
    nodes.onGone(this::nodeGone);
    heartbeat = vertx.setPeriodic(NodeAnnouncement.PERIOD.toMillis(), id -> beat());
    beat();
  }

  /** Whether any endpoint runs on a node. */
  boolean any() {
    return !remotes.isEmpty();
  }

  /** Starts {@code spec} on the node serving its host; completes when the engine is READY. */
  Future<Void> start(EngineSpec spec) {
    Remote remote = new Remote(spec);
    remotes.put(spec.endpoint().id(), remote);
    if (!place(remote)) {
      LOG.info("{}: waiting for a tandem node serving host {}", spec.describe(),
          spec.endpoint().host());
      long progress = vertx.setPeriodic(PROGRESS_EVERY.toMillis(), id -> {
        if (remote.nodeId == null && !remote.first.future().isComplete()) {
          LOG.info("{}: still waiting for a tandem node serving host {} ({} s)", spec.describe(),
              spec.endpoint().host(), (System.nanoTime() - remote.since) / 1_000_000_000L);
        }
      });
      remote.first.future().onComplete(ar -> vertx.cancelTimer(progress));
    }
    return remote.first.future();
  }

  /** Fails the starts still in progress and stops what nodes run for us (another engine failed). */
  void abort(String reason) {
    for (Remote r : remotes.values()) {
      r.aborted = true;
      String why = r.nodeId == null ? "no tandem node serving host " + r.spec.endpoint().host()
          + " joined; " + reason : reason;
      r.first.tryFail(new EngineStartException(r.spec.describe() + " was not started: " + why));
      if (r.nodeId != null) {
        stopOnNode(r);
      }
    }
  }

  /**
   * The router is stopping: with {@code --stop-remote-engines} every node stops our engines (the
   * reply waited for), otherwise they keep running for the next router to adopt.
   */
  Future<Void> stop() {
    if (stopped) {
      return Future.succeededFuture();
    }
    stopped = true;
    vertx.cancelTimer(heartbeat);
    List<Future<Void>> stops = new ArrayList<>();
    for (Remote r : remotes.values()) {
      r.aborted = true;
      r.first.tryFail(new EngineStartException(r.spec.describe() + " was not started: stopped"));
      if (stopWithOwner && r.nodeId != null) {
        stops.add(stopOnNode(r));
      }
    }
    if (!stopWithOwner && !remotes.isEmpty()) {
      LOG.info("{} engine(s) keep running on their nodes (no --stop-remote-engines)",
          remotes.values().stream().filter(r -> r.nodeId != null).count());
    }
    return Future.join(stops).mapEmpty();
  }

  private void beat() {
    vertx.eventBus().publish(bus.supervisorHeartbeat(), new JsonObject().put("owner", owner));
  }

  /** Sends the engine to a node serving its host, if one is alive; false if none is. */
  private boolean place(Remote remote) {
    return nodes.serving(remote.spec.endpoint().host()).map(node -> {
      send(remote, node);
      return true;
    }).orElse(false);
  }

  private void send(Remote remote, NodeAnnouncement node) {
    remote.nodeId = node.nodeId();
    EngineSpec spec = remote.spec;
    LOG.info("{}: starting on node {} (pid {})", spec.describe(), node.nodeId(), node.pid());
    JsonObject order = new JsonObject().put("action", "start")
        .put("spec", EngineSpecJson.toJson(spec)).put("owner", owner)
        .put("stopWithOwner", stopWithOwner);
    DeliveryOptions options = new DeliveryOptions()
        .setSendTimeout(startupTimeout.plusSeconds(10).toMillis());
    vertx.eventBus().<JsonObject>request(bus.nodeControl(node.nodeId()), order, options)
        .onSuccess(reply -> {
          remote.failures = 0;
          fleet.update(reply.body());
          remote.first.tryComplete();
        })
        .onFailure(err -> failed(remote, node, err));
  }

  private void failed(Remote remote, NodeAnnouncement node, Throwable err) {
    String why = err instanceof ReplyException re ? re.getMessage() : err.toString();
    if (remote.aborted || stopped) {
      return;
    }
    if (!remote.first.future().isComplete()) {
      remote.first.tryFail(new EngineStartException(remote.spec.describe() + " could not be"
          + " started on node " + node.nodeId() + ": " + why));
      return;
    }
    if (!node.nodeId().equals(remote.nodeId)) {
      return; // the node went away meanwhile; its successor gets the engine
    }
    remote.failures++;
    if (remote.failures > RETRIES) {
      LOG.error("{}: gave up starting it on node {} after {} tries; last: {}",
          remote.spec.describe(), node.nodeId(), remote.failures, why);
      return;
    }
    LOG.warn("{}: start on node {} failed ({}); again in {} s", remote.spec.describe(),
        node.nodeId(), why, RETRY_AFTER.toSeconds());
    vertx.setTimer(RETRY_AFTER.toMillis(), id -> {
      if (!stopped && node.nodeId().equals(remote.nodeId) && nodes.alive(node.nodeId())) {
        send(remote, node);
      }
    });
  }

  private void nodeAppeared(NodeAnnouncement node) {
    for (Remote r : remotes.values()) {
      if (r.nodeId == null && !r.aborted && !stopped && node.serves(r.spec.endpoint().host())) {
        send(r, node);
      }
    }
  }

  private void nodeGone(NodeAnnouncement node) {
    for (Remote r : remotes.values()) {
      if (node.nodeId().equals(r.nodeId)) {
        r.nodeId = null;
        r.failures = 0;
        publishGone(r, node);
        if (!r.aborted && !stopped && !place(r)) {
          LOG.info("{}: waiting for a tandem node serving host {} to start it again",
              r.spec.describe(), r.spec.endpoint().host());
        }
      }
    }
  }

  /** Out of rotation at once: the engine's own status cannot come any more. */
  private void publishGone(Remote remote, NodeAnnouncement node) {
    JsonObject last = fleet.latest(remote.spec.endpoint().id());
    if (last == null) {
      return; // never announced: nobody routes to it
    }
    JsonObject status = last.put("state", EngineState.UNHEALTHY.name())
        .put("generation", last.getInteger("generation", 0) + 1)
        .put("detail", "its node " + node.nodeId() + " is gone; waiting for a node serving "
            + remote.spec.endpoint().host())
        .put("pid", null);
    vertx.eventBus().publish(bus.engineStatus(), status);
  }

  private Future<Void> stopOnNode(Remote remote) {
    JsonObject order = new JsonObject().put("action", "stop").put("id", remote.spec.endpoint().id());
    return vertx.eventBus().request(bus.nodeControl(remote.nodeId), order,
        new DeliveryOptions().setSendTimeout(STOP_WAIT.toMillis()))
        .<Void>mapEmpty()
        .recover(err -> {
          LOG.warn("{}: its node did not stop it: {}", remote.spec.describe(), err.getMessage());
          return Future.succeededFuture();
        });
  }
}
