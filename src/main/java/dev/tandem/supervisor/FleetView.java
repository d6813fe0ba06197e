package dev.tandem.supervisor;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The supervisor's view of the fleet: the latest status each engine published, by engine id.
 * Owned by the supervisor verticle (touched on its context only).
 */
final class FleetView {
  private final Map<Integer, JsonObject> latest = new TreeMap<>();
  /** Removed engines (ids are never reused): their late events do not bring them back. */
  private final Set<Integer> removed = new HashSet<>();

  void update(JsonObject status) {
    Integer id = status.getInteger("id");
    if (id != null && !removed.contains(id)) {
      latest.put(id, status.copy());
    }
  }

  /** The latest status of engine {@code id}, or null. */
  JsonObject latest(int id) {
    JsonObject status = latest.get(id);
    return status == null ? null : status.copy();
  }

  /**
   * A removed engine: no longer part of the fleet's view, even when its last events (STOPPED)
   * are delivered after its removal.
   */
  void forget(int id) {
    latest.remove(id);
    removed.add(id);
  }

  /** {@code {"engines": [status, ...]}} ordered by engine id. */
  JsonObject toJson() {
    JsonArray engines = new JsonArray();
    latest.values().forEach(status -> engines.add(status.copy()));
    return new JsonObject().put("engines", engines);
  }
}
