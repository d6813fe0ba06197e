package dev.tandem.supervisor;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.LateMessages;
import dev.tandem.bus.NodeAnnouncement;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code tandem node}s of the fleet, from their announcements on the bus: a node is alive while
 * it announces itself, gone after {@link NodeAnnouncement#LOST_AFTER} of silence (killed, its
 * machine down or cut off: Hazelcast's own membership may take far longer to say so). Listeners
 * hear of every node that appears and every one that is gone. Used on the supervisor's context.
 */
final class NodeDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(NodeDirectory.class);
  private static final long CHECK_MS = 250;

  private final Vertx vertx;
  private final Addresses bus;
  private final Map<String, Heard> nodes = new LinkedHashMap<>();
  private final List<Consumer<NodeAnnouncement>> onNew = new ArrayList<>();
  private final List<Consumer<NodeAnnouncement>> onGone = new ArrayList<>();
  private MessageConsumer<JsonObject> consumer;
  private long timer = -1;

  private record Heard(NodeAnnouncement node, long atNanos) {}

  NodeDirectory(Vertx vertx, Addresses bus) {
    this.vertx = vertx;
    this.bus = bus;
  }

  /**
   * Listens to announcements, reads the nodes that registered themselves in the fleet's
   * cluster-wide map (their announcements may not reach a brand-new listener for a while), and
   * asks every node to announce itself now; completes once the map was read.
   */
  Future<Void> start() {
    consumer = LateMessages.dropQuietly(vertx.eventBus().consumer(bus.nodeAnnounce(),
        msg -> heard(msg.body())));
    timer = vertx.setPeriodic(CHECK_MS, id -> expire());
    return consumer.completion()
        .compose(v -> vertx.sharedData().<String, JsonObject>getAsyncMap(bus.nodeRegistry()))
        .compose(map -> map.entries())
        .map(entries -> {
          entries.values().forEach(this::heard);
          return (Void) null;
        })
        .recover(err -> {
          LOG.warn("cannot read the node registry ({}): nodes are heard from their announcements",
              err.toString());
          return Future.succeededFuture();
        })
        .onComplete(v -> vertx.eventBus().publish(bus.nodeQuery(), new JsonObject()));
  }

  void stop() {
    if (consumer != null) {
      consumer.unregister();
    }
    vertx.cancelTimer(timer);
  }

  void onNew(Consumer<NodeAnnouncement> listener) {
    onNew.add(listener);
  }

  void onGone(Consumer<NodeAnnouncement> listener) {
    onGone.add(listener);
  }

  /** A live node serving endpoint host {@code host}, the first that announced itself. */
  Optional<NodeAnnouncement> serving(String host) {
    return nodes.values().stream().map(Heard::node).filter(n -> n.serves(host)).findFirst();
  }

  /** Whether node {@code nodeId} is alive. */
  boolean alive(String nodeId) {
    return nodes.containsKey(nodeId);
  }

  private void heard(JsonObject body) {
    NodeAnnouncement node;
    try {
      node = NodeAnnouncement.fromJson(body);
    } catch (RuntimeException e) {
      LOG.warn("ignoring a node announcement that is not one: {}", body);
      return;
    }
    if (node.nodeId() == null) {
      return;
    }
    Heard before = nodes.put(node.nodeId(), new Heard(node, System.nanoTime()));
    if (before == null) {
      LOG.info("node {} (pid {}) serves endpoint hosts {}", node.nodeId(), node.pid(), node.hosts());
      onNew.forEach(l -> l.accept(node));
    }
  }

  private void expire() {
    long now = System.nanoTime();
    for (Heard h : new ArrayList<>(nodes.values())) {
      if (now - h.atNanos() > NodeAnnouncement.LOST_AFTER.toNanos()) {
        nodes.remove(h.node().nodeId());
        LOG.warn("node {} (hosts {}) is gone: silent for {} ms", h.node().nodeId(), h.node().hosts(),
            (now - h.atNanos()) / 1_000_000);
        onGone.forEach(l -> l.accept(h.node()));
      }
    }
  }
}
