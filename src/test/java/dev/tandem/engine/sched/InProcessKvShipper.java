package dev.tandem.engine.sched;

import dev.tandem.kv.KvReceiveTarget;
import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvShipper;
import dev.tandem.kv.KvTransferException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Delivers KV straight into another in-process engine (a test wiring in place of the TCP world),
 * on a separate thread as a transport would.
 */
final class InProcessKvShipper implements KvShipper {
  private final Map<Integer, KvReceiveTarget> peers;

  InProcessKvShipper(Map<Integer, KvReceiveTarget> peers) {
    this.peers = peers;
  }

  @Override
  public CompletableFuture<Void> ship(int recvRank, String requestId, int[] destSlots, KvRows rows) {
    return CompletableFuture.runAsync(() -> {
      KvReceiveTarget target = peers.get(recvRank);
      try {
        if (target == null) {
          throw new KvTransferException("no PE " + recvRank);
        }
        target.accept(requestId, destSlots, rows);
      } catch (KvTransferException e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
  }
}
