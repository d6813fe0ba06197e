package dev.tandem.supervisor;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.TreeMap;

/**
 * The supervisor's view of the fleet: the latest status each engine published, by engine id.
 * Owned by the supervisor verticle (touched on its context only).
 */
final class FleetView {
  private final Map<Integer, JsonObject> latest = new TreeMap<>();

  void update(JsonObject status) {
    Integer id = status.getInteger("id");
    if (id != null) {
      latest.put(id, status.copy());
    }
  }

  /** The latest status of engine {@code id}, or null. */
  JsonObject latest(int id) {
    JsonObject status = latest.get(id);
    return status == null ? null : status.copy();
  }

  /** A removed engine: no longer part of the fleet's view. */
  void forget(int id) {
    latest.remove(id);
  }

  /** {@code {"engines": [status, ...]}} ordered by engine id. */
  JsonObject toJson() {
    JsonArray engines = new JsonArray();
    latest.values().forEach(status -> engines.add(status.copy()));
    return new JsonObject().put("engines", engines);
  }
}
