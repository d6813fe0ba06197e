package dev.tandem.bus;

import io.vertx.core.json.JsonObject;

/**
 * What an EngineVerticle publishes on {@link Addresses#ENGINE_STATUS} on every state change.
 * {@code peStart} is the engine's first PE (the {@code recv_rank} the router sends to a prefill
 * engine); {@code generation} increases with every restart.
 */
public record EngineStatus(int id, String url, EngineRole role, int peStart, int numPes,
    EngineState state, int generation, String detail) {

  public JsonObject toJson() {
    return new JsonObject().put("id", id).put("url", url).put("role", role.name())
        .put("peStart", peStart).put("numPes", numPes).put("state", state.name())
        .put("generation", generation).put("detail", detail);
  }

  public static EngineStatus fromJson(JsonObject json) {
    return new EngineStatus(json.getInteger("id"), json.getString("url"),
        EngineRole.valueOf(json.getString("role")), json.getInteger("peStart"),
        json.getInteger("numPes"), EngineState.valueOf(json.getString("state")),
        json.getInteger("generation", 0), json.getString("detail"));
  }
}
