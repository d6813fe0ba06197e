package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvTransferException;
import dev.tandem.world.transport.ReservingKvTargetDouble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** KV transfers between engines joined in one world: prefill engine at PE 0, decode engine at PE 1. */
@Timeout(60)
class WorldKvTransferTest {
  private static final int LAYERS = 4;
  private static final int KV_DIM = 24;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private WorldRoot root(int npes) throws WorldException {
    WorldRoot root = WorldRoot.start("127.0.0.1", npes);
    toClose.add(root);
    return root;
  }

  private CompletableFuture<TcpEngineWorld> join(WorldRoot root, int peStart, ReservingKvTargetDouble target,
      String fingerprint) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        EngineWorld w = EngineWorld.join(new WorldInitConfig(root.uid(), root.npes(), peStart).toJson(), 1, "127.0.0.1",
            target, fingerprint, Duration.ofSeconds(20));
        synchronized (toClose) {
          toClose.add(w);
        }
        return (TcpEngineWorld) w;
      } catch (WorldException e) {
        throw new RuntimeException(e);
      }
    });
  }

  private static String reason(ExecutionException e) {
    assertInstanceOf(KvTransferException.class, e.getCause());
    return e.getCause().getMessage();
  }

  private static void assertRowsAt(ReservingKvTargetDouble target, KvRows rows, int[] slots) {
    for (int l = 0; l < LAYERS; l++) {
      for (int i = 0; i < slots.length; i++) {
        assertArrayEquals(Arrays.copyOfRange(rows.keys()[l], i * KV_DIM, (i + 1) * KV_DIM), target.keyRow(l, slots[i]));
        assertArrayEquals(Arrays.copyOfRange(rows.values()[l], i * KV_DIM, (i + 1) * KV_DIM),
            target.valueRow(l, slots[i]));
      }
    }
  }

  @Test
  void prefillShipsIntoTheDecodeEnginesReservedSlots() throws Exception {
    WorldRoot root = root(2);
    ReservingKvTargetDouble dTarget = new ReservingKvTargetDouble(LAYERS, KV_DIM, 128);
    CompletableFuture<TcpEngineWorld> p = join(root, 0, new ReservingKvTargetDouble(LAYERS, KV_DIM, 128), "fp");
    CompletableFuture<TcpEngineWorld> d = join(root, 1, dTarget, "fp");
    int[] slots = {32, 33, 34, 35, 36, 37, 80};
    dTarget.reserve("chatcmpl-1", slots);
    KvRows rows = ReservingKvTargetDouble.rows(LAYERS, KV_DIM, slots.length, 11);
    p.get(20, TimeUnit.SECONDS).shipper().ship(1, "chatcmpl-1", slots, rows).get(20, TimeUnit.SECONDS);
    assertRowsAt(dTarget, rows, slots);
    d.get().close();
  }

  @Test
  void differentModelIsRefusedAndNothingWritten() throws Exception {
    WorldRoot root = root(2);
    ReservingKvTargetDouble dTarget = new ReservingKvTargetDouble(LAYERS, KV_DIM, 128);
    CompletableFuture<TcpEngineWorld> p = join(root, 0, new ReservingKvTargetDouble(LAYERS, KV_DIM, 128), "model-a");
    join(root, 1, dTarget, "model-b");
    dTarget.reserve("r", 5);
    ExecutionException e = assertThrows(ExecutionException.class, () -> p.get(20, TimeUnit.SECONDS).shipper()
        .ship(1, "r", new int[] {5}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 1)).get(20, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("refused the KV transfer: model mismatch"), reason(e));
    assertTrue(dTarget.untouched());
  }

  @Test
  void unreservedSlotIsRefusedAndNothingWritten() throws Exception {
    WorldRoot root = root(2);
    ReservingKvTargetDouble dTarget = new ReservingKvTargetDouble(LAYERS, KV_DIM, 128);
    CompletableFuture<TcpEngineWorld> p = join(root, 0, new ReservingKvTargetDouble(LAYERS, KV_DIM, 128), "fp");
    join(root, 1, dTarget, "fp");
    dTarget.reserve("r", 5, 6);
    ExecutionException e = assertThrows(ExecutionException.class, () -> p.get(20, TimeUnit.SECONDS).shipper()
        .ship(1, "r", new int[] {5, 6, 7}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 3, 1)).get(20, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("slot 7 is not reserved for request r"), reason(e));
    assertTrue(dTarget.untouched());
  }

  @Test
  void restartedDecodeEngineIsReachedAtItsNewAddress() throws Exception {
    WorldRoot root = root(2);
    ReservingKvTargetDouble before = new ReservingKvTargetDouble(LAYERS, KV_DIM, 64);
    CompletableFuture<TcpEngineWorld> pf = join(root, 0, new ReservingKvTargetDouble(LAYERS, KV_DIM, 64), "fp");
    TcpEngineWorld d = join(root, 1, before, "fp").get(20, TimeUnit.SECONDS);
    TcpEngineWorld p = pf.get(20, TimeUnit.SECONDS);
    before.reserve("a", 1);
    p.shipper().ship(1, "a", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 1)).get(20, TimeUnit.SECONDS);
    int oldPort = d.kvAddress().getPort();

    d.close(); // the decode engine dies ...
    ExecutionException gone = assertThrows(ExecutionException.class, () -> p.shipper()
        .ship(1, "b", new int[] {2}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 2)).get(20, TimeUnit.SECONDS));
    assertTrue(reason(gone).contains("the engine holding PE 1") && reason(gone).contains("has left the world"),
        reason(gone));

    ReservingKvTargetDouble after = new ReservingKvTargetDouble(LAYERS, KV_DIM, 64);
    TcpEngineWorld d2 = join(root, 1, after, "fp").get(5, TimeUnit.SECONDS); // ... and rejoins at once
    assertNotEquals(oldPort, d2.kvAddress().getPort());
    after.reserve("c", 3);
    KvRows rows = ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 3);
    p.shipper().ship(1, "c", new int[] {3}, rows).get(20, TimeUnit.SECONDS);
    assertRowsAt(after, rows, new int[] {3});
    assertEquals(1, before.storedTransfers());
    assertEquals(d2.kvAddress().getPort(), p.table().owner(1).orElseThrow().kvPort(), "P's table follows the restart");
    assertTrue(d2.table().complete(), "the rejoined engine got the whole table");
  }

  @Test
  void peOutsideTheWorldIsRefused() throws Exception {
    WorldRoot root = root(1);
    TcpEngineWorld only = join(root, 0, new ReservingKvTargetDouble(LAYERS, KV_DIM, 8), "fp").get(20, TimeUnit.SECONDS);
    ExecutionException e = assertThrows(ExecutionException.class, () -> only.shipper()
        .ship(3, "r", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 1)).get(20, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("PE 3 is not in the world (its PEs are 0..0)"), reason(e));
  }
}
