package dev.tandem.fleet;

import dev.tandem.kv.KvWorld;
import dev.tandem.world.WorldInitConfig;
import java.util.Arrays;
import java.util.Map;

/**
 * The world every engine of a fleet joins: the 125-integer uid (NVSHMEM's, or the builtin world
 * root's) and the total number of PEs. Renders each engine's
 * {@code MLC_NVSHMEM_INIT_CONFIG_JSON_STR}.
 */
public final class WorldInit {
  private final int[] uid;
  private final int npes;

  public WorldInit(int[] uid, int npes) {
    this.uid = uid.clone();
    this.npes = npes;
  }

  public int[] uid() {
    return uid.clone();
  }

  public int npes() {
    return npes;
  }

  /**
   * The JSON exactly as MLC's router writes it with Python's {@code json.dumps}: keys {@code uid},
   * {@code npes}, {@code pe_start} in that order, separators {@code ", "} and {@code ": "}, e.g.
   * {@code {"uid": [65664, -3, 7], "npes": 3, "pe_start": 1}}.
   */
  public String initConfigJson(int peStart) {
    return new WorldInitConfig(uid, npes, peStart).toJson();
  }

  /** The one environment entry that hands engine {@code peStart} its world: {@link KvWorld#ENV}. */
  public Map<String, String> env(int peStart) {
    return Map.of(KvWorld.ENV, initConfigJson(peStart));
  }

  @Override
  public String toString() {
    return "WorldInit[npes=" + npes + ", uid=" + Arrays.toString(uid) + "]";
  }
}
