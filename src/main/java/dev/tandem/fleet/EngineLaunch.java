package dev.tandem.fleet;

import dev.tandem.config.EndpointConfig;
import java.util.Map;

/**
 * What an {@link EngineProfile} needs to build one engine's command, as MLC's router passes it to
 * PopenServer: the model, the endpoint (host, port, first device), the prefix-cache switch, extra
 * {@code --overrides} entries and the world (null when the mode needs none, i.e. round-robin).
 */
public record EngineLaunch(String model, String modelLib, EndpointConfig endpoint,
    boolean prefixCache, String extraOverrides, WorldInit world) {

  /** MLC's router always ends up with these overrides (EngineConfig defaults, reference 1.1). */
  public static final String MLC_ROUTER_OVERRIDES = "gpu_memory_utilization=0.8;spec_draft_length=0";

  /** The world's environment entry for this engine; empty when the mode needs no world. */
  public Map<String, String> worldEnv() {
    return world == null ? Map.of() : world.env(endpoint.peStart());
  }

  /** The {@code --overrides} value: MLC's two, then ours (later keys win in the engine's parser). */
  public String overrides() {
    return extraOverrides == null || extraOverrides.isBlank() ? MLC_ROUTER_OVERRIDES
        : MLC_ROUTER_OVERRIDES + ";" + extraOverrides;
  }
}
