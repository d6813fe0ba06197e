package dev.tandem.world;

import dev.tandem.kv.KvReceiveTarget;
import dev.tandem.kv.KvWorld;
import java.time.Duration;

/**
 * An engine's membership in the KV world: its KV receiver, its place (pe_start, npes) and a shipper
 * that reaches every other PE. Created from {@code MLC_NVSHMEM_INIT_CONFIG_JSON_STR}.
 */
public interface EngineWorld extends KvWorld {

  /** The 125-integer uid this engine was given. */
  int[] uid();

  /**
   * Opens the KV receiver on {@code bindHost}, joins the world described by {@code initConfigJson}
   * and blocks until every PE has joined or {@code timeout} passes (then throws with a clear reason).
   * {@code numPes} is the number of PEs this engine holds (its GPU/CPU count, 1 by default).
   * Blocking: call it from a worker or dedicated thread, never from an event loop.
   */
  static EngineWorld join(String initConfigJson, int numPes, String bindHost, KvReceiveTarget target,
      String modelFingerprint, Duration timeout) throws WorldException {
    return TcpEngineWorld.join(initConfigJson, numPes, bindHost, target, modelFingerprint, timeout);
  }
}
