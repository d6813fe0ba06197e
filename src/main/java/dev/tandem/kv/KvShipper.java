package dev.tandem.kv;

import java.util.concurrent.CompletableFuture;

/** Ships a prefill engine's KV rows into the cache of the engine at PE {@code recvRank}. */
public interface KvShipper {
  /**
   * Completes when the receiver acknowledged a complete, verified transfer; fails with a
   * {@link KvTransferException} carrying the receiver's reason otherwise.
   */
  CompletableFuture<Void> ship(int recvRank, String requestId, int[] destSlots, KvRows rows);
}
