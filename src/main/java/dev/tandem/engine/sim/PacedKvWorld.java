package dev.tandem.engine.sim;

import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvShipper;
import dev.tandem.kv.KvWorld;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A simulated engine's KV world: the real one (same world root, same TCP transport, same header
 * with request id, slots, shape, fingerprint, checksum and proof of the world secret, same
 * receiver checks and acknowledgement), carrying the simulation's small rows, with each transfer
 * held back first for as long as the profile's link would take to move the KV of that many
 * positions of the real model ({@link StepTimeModel#transferNanos}). The wait runs on a timer
 * thread of its own, never on the engine's step thread or an event loop.
 */
public final class PacedKvWorld implements KvWorld {

  private final KvWorld world;
  private final StepTimeModel timing;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "tandem-sim-kv-link");
    t.setDaemon(true);
    return t;
  });
  private final KvShipper shipper;

  public PacedKvWorld(KvWorld world, StepTimeModel timing) {
    this.world = world;
    this.timing = timing;
    this.shipper = this::ship;
  }

  private CompletableFuture<Void> ship(int recvRank, String requestId, int[] destSlots,
      KvRows rows) {
    long delay = timing.transferNanos(rows.numTokens());
    CompletableFuture<Void> done = new CompletableFuture<>();
    timer.schedule(() -> {
      world.shipper().ship(recvRank, requestId, destSlots, rows).whenComplete((v, e) -> {
        if (e != null) {
          done.completeExceptionally(e);
        } else {
          done.complete(null);
        }
      });
    }, delay, TimeUnit.NANOSECONDS);
    return done;
  }

  @Override
  public int peStart() {
    return world.peStart();
  }

  @Override
  public int numPes() {
    return world.numPes();
  }

  @Override
  public int npes() {
    return world.npes();
  }

  @Override
  public KvShipper shipper() {
    return shipper;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    world.close();
  }
}
