package dev.tandem.fleet;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The supervisor's order to an engine when it re-forms a world that admits no late member: leave
 * the old world (after at most {@code drainMs} for the engine's requests to finish) and start
 * again in world {@code epoch}, whose uid and size are given. Sent on the engine's control
 * address as {@code {"action": "rejoin", ...}}.
 */
public record WorldRejoin(int[] uid, int npes, int epoch, long drainMs) {

  public static final String ACTION = "rejoin";

  public JsonObject toJson() {
    JsonArray u = new JsonArray();
    for (int v : uid) {
      u.add(v);
    }
    return new JsonObject().put("action", ACTION).put("uid", u).put("npes", npes)
        .put("epoch", epoch).put("drainMs", drainMs);
  }

  public static WorldRejoin fromJson(JsonObject json) {
    JsonArray u = json.getJsonArray("uid");
    int[] uid = new int[u.size()];
    for (int i = 0; i < uid.length; i++) {
      uid[i] = u.getInteger(i);
    }
    return new WorldRejoin(uid, json.getInteger("npes"), json.getInteger("epoch"),
        json.getLong("drainMs", 0L));
  }

  /** The world's environment entry for the engine whose first PE is {@code peStart}. */
  java.util.Map<String, String> env(int peStart) {
    return new WorldInit(uid, npes).env(peStart);
  }
}
