package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.FreePorts;
import dev.tandem.world.transport.ReservingKvTargetDouble;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** World start-up over real sockets on 127.0.0.1: forming, and every refusal with its message. */
@Timeout(60)
class WorldJoinTest {
  static final String FP = "model-fingerprint-a";
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() throws Exception {
    pool.shutdownNow();
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private WorldRoot root(int npes) throws WorldException {
    WorldRoot root = WorldRoot.start("127.0.0.1", npes);
    toClose.add(root);
    return root;
  }

  private EngineWorld join(int[] uid, int npes, int peStart, Duration timeout) throws WorldException {
    return join(new WorldInitConfig(uid, npes, peStart).toJson(), 1, timeout);
  }

  private EngineWorld join(String json, int numPes, Duration timeout) throws WorldException {
    EngineWorld w = EngineWorld.join(json, numPes, "127.0.0.1", new ReservingKvTargetDouble(2, 8, 32), FP, timeout);
    synchronized (toClose) {
      toClose.add(w);
    }
    return w;
  }

  private CompletableFuture<EngineWorld> joinAsync(int[] uid, int npes, int peStart, long delayMs) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return join(uid, npes, peStart, Duration.ofSeconds(20));
      } catch (WorldException e) {
        throw new RuntimeException(e);
      }
    }, CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS, pool));
  }

  /** Waits until the root holds {@code pes} PEs (test-side polling of the real root's table). */
  private static void awaitJoined(TcpWorldRoot root, int pes) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (root.table().joinedPes().size() < pes && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(pes, root.table().joinedPes().size(), "PEs joined at the root");
  }

  @Test
  void threeEnginesJoiningAtOnceGetTheSameTable() throws Exception {
    WorldRoot root = root(3);
    int[] uid = root.uid();
    List<CompletableFuture<EngineWorld>> joins = List.of(joinAsync(uid, 3, 2, 0), joinAsync(uid, 3, 0, 0),
        joinAsync(uid, 3, 1, 0));
    CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    PeTable first = ((TcpEngineWorld) joins.get(0).get()).table();
    assertEquals(3, first.entries().size());
    assertTrue(first.complete());
    for (CompletableFuture<EngineWorld> j : joins) {
      TcpEngineWorld w = (TcpEngineWorld) j.get();
      assertEquals(first.entries(), w.table().entries());
      assertEquals(3, w.npes());
      PeTable.Entry mine = w.table().owner(w.peStart()).orElseThrow();
      assertEquals(w.kvAddress().getPort(), mine.kvPort());
      assertEquals(uid.length, w.uid().length);
    }
  }

  @Test
  void enginesStartedSecondsApartAllJoin() throws Exception {
    WorldRoot root = root(3);
    int[] uid = root.uid();
    long start = System.nanoTime();
    List<CompletableFuture<EngineWorld>> joins = List.of(joinAsync(uid, 3, 0, 0), joinAsync(uid, 3, 1, 1500),
        joinAsync(uid, 3, 2, 3000));
    CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertTrue(System.nanoTime() - start >= 3_000_000_000L, "the first engine waited for the last");
    for (CompletableFuture<EngineWorld> j : joins) {
      assertTrue(((TcpEngineWorld) j.get()).table().complete());
    }
  }

  @Test
  void deadRootFailsClearlyWithinTheTimeout() throws Exception {
    int port = FreePorts.one(); // nobody listens there
    int[] uid = WorldUid.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).encode();
    long start = System.nanoTime();
    WorldException e = assertThrows(WorldException.class, () -> join(uid, 2, 0, Duration.ofMillis(1500)));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(e.getMessage().startsWith("could not reach the world root at 127.0.0.1:" + port + " within 1.5 s"),
        e.getMessage());
    assertTrue(ms >= 1400 && ms < 3000, "failed after " + ms + " ms");
  }

  @Test
  void worldThatNeverFormsTimesOutNamingTheMissingPes() throws Exception {
    WorldRoot root = root(3);
    joinAsync(root.uid(), 3, 2, 0);
    awaitJoined((TcpWorldRoot) root, 1);
    WorldException e = assertThrows(WorldException.class, () -> join(root.uid(), 3, 0, Duration.ofSeconds(2)));
    assertTrue(e.getMessage().contains("the world did not form within 2 s: PEs [0,2] of npes 3 joined, still missing [1]"),
        e.getMessage());
  }

  @Test
  void wrongSecretIsRefused() throws Exception {
    WorldRoot root = root(1);
    WorldUid real = WorldUid.decode(root.uid());
    int[] forged = WorldUid.create(real.root()).encode(); // same address, another secret
    WorldException e = assertThrows(WorldException.class, () -> join(forged, 1, 0, Duration.ofSeconds(5)));
    assertTrue(e.getMessage().contains("refused this engine: wrong world secret"), e.getMessage());
  }

  @Test
  void anEngineAddedToAFormedWorldGrowsItAndEveryMemberFindsIt() throws Exception {
    WorldRoot root = root(2);
    int[] uid = root.uid();
    List<CompletableFuture<EngineWorld>> joins = List.of(joinAsync(uid, 2, 0, 0), joinAsync(uid, 2, 1, 0));
    CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    TcpEngineWorld first = (TcpEngineWorld) joins.get(0).get();
    assertThrows(dev.tandem.kv.KvTransferException.class, () -> first.address(2), "no PE 2 yet");
    TcpEngineWorld added = (TcpEngineWorld) join(uid, 3, 2, Duration.ofSeconds(10));
    assertEquals(3, root.npes());
    assertEquals(3, added.table().npes());
    // the root pushes the larger table to the members from before; a lookup finds it too
    assertEquals(added.kvAddress().getPort(), first.address(2).getPort());
    long deadline = System.nanoTime() + 10_000_000_000L;
    TcpEngineWorld second = (TcpEngineWorld) joins.get(1).get();
    while (second.npes() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(3, second.npes(), "the pushed table tells a member the world grew");
    assertEquals(3, first.npes());
  }

  @Test
  void npesMismatchIsRefused() throws Exception {
    WorldRoot root = root(2);
    WorldException e = assertThrows(WorldException.class, () -> join(root.uid(), 3, 0, Duration.ofSeconds(5)));
    assertTrue(e.getMessage().contains("npes mismatch: this engine was told npes=3 but the world has npes=2"),
        e.getMessage());
  }

  @Test
  void duplicatePeIsRefused() throws Exception {
    WorldRoot root = root(2);
    CompletableFuture<EngineWorld> first = joinAsync(root.uid(), 2, 0, 0);
    // Wait until the root holds the first engine, then send a second engine with the same pe_start.
    awaitJoined((TcpWorldRoot) root, 1);
    WorldException e = assertThrows(WorldException.class, () -> join(root.uid(), 2, 0, Duration.ofSeconds(5)));
    assertTrue(e.getMessage().contains("duplicate PE 0: it is already held by the engine whose KV receiver is 127.0.0.1:"),
        e.getMessage());
    join(root.uid(), 2, 1, Duration.ofSeconds(5));
    assertTrue(((TcpEngineWorld) first.get(10, TimeUnit.SECONDS)).table().complete(), "the world still forms");
  }

  @Test
  void overlappingRangeIsRefused() throws Exception {
    WorldRoot root = root(4);
    pool.submit(() -> join(new WorldInitConfig(root.uid(), 4, 0).toJson(), 2, Duration.ofSeconds(20)));
    awaitJoined((TcpWorldRoot) root, 2);
    WorldException e = assertThrows(WorldException.class,
        () -> join(new WorldInitConfig(root.uid(), 4, 1).toJson(), 2, Duration.ofSeconds(5)));
    assertTrue(e.getMessage().contains("duplicate PE 1"), e.getMessage());
  }

  @Test
  void malformedConfigAndNvshmemUidAreRefusedBeforeAnyNetwork() {
    WorldException e = assertThrows(WorldException.class, () -> join("{\"uid\": [1, 2", 1, Duration.ofSeconds(1)));
    assertTrue(e.getMessage().startsWith("MLC_NVSHMEM_INIT_CONFIG_JSON_STR is not valid JSON"), e.getMessage());
    int[] nvshmem = new int[125];
    nvshmem[0] = 65664;
    e = assertThrows(WorldException.class, () -> join(nvshmem, 2, 0, Duration.ofSeconds(1)));
    assertTrue(e.getMessage().contains("this uid is an NVSHMEM uid"), e.getMessage());
    assertTrue(e.getMessage().contains("the builtin engine needs a Tandem world uid"), e.getMessage());
  }

  @Test
  void pesBeyondTheWorldAreRefused() throws Exception {
    WorldRoot root = root(2);
    WorldException e = assertThrows(WorldException.class,
        () -> join(new WorldInitConfig(root.uid(), 2, 1).toJson(), 2, Duration.ofSeconds(1)));
    assertTrue(e.getMessage().contains("holds 2 PE(s) from pe_start 1, beyond the world's npes 2"), e.getMessage());
  }

  @Test
  void rootUidEncodesItsAddress() throws Exception {
    WorldRoot root = root(5);
    WorldUid uid = WorldUid.decode(root.uid());
    assertEquals("127.0.0.1", uid.root().getAddress().getHostAddress());
    assertEquals(5, root.npes());
    assertEquals(WorldUid.VERSION, root.uid()[0]);
  }
}
