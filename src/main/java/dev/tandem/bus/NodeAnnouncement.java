package dev.tandem.bus;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@code tandem node} (an engine-host agent) says of itself on
 * {@link Addresses#nodeAnnounce()}: who it is, which endpoint hosts it serves, and which engines it
 * runs now. A supervisor sends each endpoint whose host a node serves to that node's
 * {@link Addresses#nodeControl(String)}.
 *
 * @param nodeId unique for the node's process (a node that comes back is a new node)
 * @param hosts the endpoint hosts it serves: names and addresses as endpoints give them
 * @param pid the node's process id (its engines are its children)
 * @param engines the ids of the engines it runs now
 */
public record NodeAnnouncement(String nodeId, List<String> hosts, long pid, List<Integer> engines) {
  /** How often a node announces itself and a supervisor sends its heartbeat. */
  public static final Duration PERIOD = Duration.ofSeconds(1);
  /** Silent this long: the node (or supervisor) is gone. */
  public static final Duration LOST_AFTER = Duration.ofMillis(3500);

  public NodeAnnouncement {
    hosts = List.copyOf(hosts);
    engines = List.copyOf(engines);
  }

  /** Whether this node serves endpoints on {@code host}. */
  public boolean serves(String host) {
    return hosts.contains(host);
  }

  public JsonObject toJson() {
    return new JsonObject().put("nodeId", nodeId).put("hosts", new JsonArray(new ArrayList<>(hosts)))
        .put("pid", pid).put("engines", new JsonArray(new ArrayList<>(engines)));
  }

  public static NodeAnnouncement fromJson(JsonObject json) {
    List<String> hosts = new ArrayList<>();
    json.getJsonArray("hosts", new JsonArray()).forEach(h -> hosts.add(String.valueOf(h)));
    List<Integer> engines = new ArrayList<>();
    json.getJsonArray("engines", new JsonArray()).forEach(e -> engines.add(((Number) e).intValue()));
    return new NodeAnnouncement(json.getString("nodeId"), hosts, json.getLong("pid", 0L), engines);
  }
}
