package dev.tandem.bus;

import io.vertx.core.json.JsonObject;

/**
 * What an EngineVerticle publishes on {@link Addresses#engineStatus()} on every state change.
 * {@code peStart} is the engine's first PE (the {@code recv_rank} the router sends to a prefill
 * engine); {@code generation} increases with every restart.
 *
 * @param kind the engine program, as {@code --engine} names it ({@code builtin}, {@code mlc}):
 *     what the router may ask of it and how it frees a KV reservation
 * @param world the KV world the engine's process joined, or null when it is in none
 */
public record EngineStatus(int id, String url, EngineRole role, int peStart, int numPes,
    EngineState state, int generation, String detail, String kind, World world) {

  /** The kind an engine that does not say is taken for: Tandem's builtin engine. */
  public static final String BUILTIN = "builtin";
  /** MLC-LLM's {@code mlc_llm serve}. */
  public static final String MLC = "mlc";

  /**
   * The KV world an engine joined.
   *
   * @param epoch which world of the fleet: 0 for the first, one more for every re-formed one;
   *     engines exchange KV only within one epoch
   * @param fixed the world admits no late member (NVSHMEM; a builtin world told to behave so):
   *     while one of its engines is not READY, the world is broken and its engines only serve
   *     whole requests, until the supervisor re-forms it
   */
  public record World(int epoch, boolean fixed) {
    public JsonObject toJson() {
      return new JsonObject().put("epoch", epoch).put("fixed", fixed);
    }

    public static World fromJson(JsonObject json) {
      return json == null ? null
          : new World(json.getInteger("epoch", 0), json.getBoolean("fixed", false));
    }
  }

  /** A builtin engine in no world (tests, and publishers that predate kind and world). */
  public EngineStatus(int id, String url, EngineRole role, int peStart, int numPes,
      EngineState state, int generation, String detail) {
    this(id, url, role, peStart, numPes, state, generation, detail, BUILTIN, null);
  }

  public EngineStatus {
    kind = kind == null ? BUILTIN : kind;
  }

  public boolean isMlc() {
    return MLC.equals(kind);
  }

  public JsonObject toJson() {
    return new JsonObject().put("id", id).put("url", url).put("role", role.name())
        .put("peStart", peStart).put("numPes", numPes).put("state", state.name())
        .put("generation", generation).put("detail", detail).put("kind", kind)
        .put("world", world == null ? null : world.toJson());
  }

  /** Reads a status; a required field missing or of the wrong type is an IllegalArgumentException. */
  public static EngineStatus fromJson(JsonObject json) {
    String what = "an engine status";
    return new EngineStatus(BusJson.requiredInt(json, what, "id"),
        BusJson.requiredString(json, what, "url"),
        BusJson.requiredEnum(json, what, "role", EngineRole.class),
        BusJson.requiredInt(json, what, "peStart"), BusJson.requiredInt(json, what, "numPes"),
        BusJson.requiredEnum(json, what, "state", EngineState.class),
        json.getInteger("generation", 0), json.getString("detail"), json.getString("kind"),
        World.fromJson(json.getJsonObject("world")));
  }
}
