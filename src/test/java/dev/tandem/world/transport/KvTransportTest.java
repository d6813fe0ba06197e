package dev.tandem.world.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvTransferException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class KvTransportTest {
  private static final int LAYERS = 3;
  private static final int KV_DIM = 40;
  private static final String FP = "fingerprint-of-model-a";
  private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes();

  private final ReservingKvTargetDouble target = new ReservingKvTargetDouble(LAYERS, KV_DIM, 64);
  private KvReceiver receiver;
  private TcpKvShipper shipper;

  private void start(int peStart, int numPes) throws Exception {
    receiver = KvReceiver.start("127.0.0.1", new KvReceiver.ReceiverPolicy(peStart, numPes, new WorldSecret(SECRET), FP,
        target, 1L << 30));
  }

  private TcpKvShipper shipper(byte[] secret, String fingerprint) {
    InetSocketAddress at = receiver.address();
    shipper = new TcpKvShipper(new WorldSecret(secret), fingerprint, new PeResolver() {
      @Override
      public InetSocketAddress address(int pe) {
        return at;
      }

      @Override
      public InetSocketAddress refresh(int pe, InetSocketAddress failed) {
        return at;
      }
    });
    return shipper;
  }

  @AfterEach
  void close() {
    if (shipper != null) {
      shipper.close();
    }
    if (receiver != null) {
      receiver.close();
    }
  }

  private static String reason(Exception e) {
    Throwable t = e instanceof ExecutionException ? e.getCause() : e;
    assertInstanceOf(KvTransferException.class, t);
    return t.getMessage();
  }

  @Test
  void rowsArriveBitExactInTheReservedSlotsOverOnePooledConnection() throws Exception {
    start(2, 1);
    target.reserve("r1", 17, 18, 19, 40, 41);
    KvRows rows = ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 5, 1);
    int[] slots = {17, 18, 19, 40, 41};
    shipper(SECRET, FP).ship(2, "r1", slots, rows).get(10, TimeUnit.SECONDS);
    for (int l = 0; l < LAYERS; l++) {
      for (int i = 0; i < slots.length; i++) {
        float[] k = java.util.Arrays.copyOfRange(rows.keys()[l], i * KV_DIM, (i + 1) * KV_DIM);
        float[] v = java.util.Arrays.copyOfRange(rows.values()[l], i * KV_DIM, (i + 1) * KV_DIM);
        assertArrayEquals(k, target.keyRow(l, slots[i]));
        assertArrayEquals(v, target.valueRow(l, slots[i]));
      }
    }
    // A second request reuses the connection (sequence 1 on the same nonce) and lands too.
    target.reserve("r2", 3);
    shipper.ship(2, "r2", new int[] {3}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 2)).get(10, TimeUnit.SECONDS);
    assertEquals(2, target.storedTransfers());
  }

  @Test
  void payloadLargerThanOneChunkSurvives() throws Exception {
    start(0, 1);
    int tokens = 64;
    KvRows rows = ReservingKvTargetDouble.rows(LAYERS, KV_DIM, tokens, 3);
    int[] slots = new int[tokens];
    for (int i = 0; i < tokens; i++) {
      slots[i] = i;
    }
    target.reserve("big", slots);
    // 64 tokens x 40 floats is below 1 MiB; shrink nothing, instead check a payload spanning many chunks:
    KvRows wide = ReservingKvTargetDouble.rows(1, 300_000, 1, 4);
    ReservingKvTargetDouble wideTarget = new ReservingKvTargetDouble(1, 300_000, 1);
    wideTarget.reserve("wide", 0);
    try (KvReceiver r = KvReceiver.start("127.0.0.1", new KvReceiver.ReceiverPolicy(0, 1, new WorldSecret(SECRET), FP,
        wideTarget, 1L << 30)); TcpKvShipper s = new TcpKvShipper(new WorldSecret(SECRET), FP, fixed(r.address()))) {
      s.ship(0, "wide", new int[] {0}, wide).get(10, TimeUnit.SECONDS);
    }
    assertArrayEquals(wide.keys()[0], wideTarget.keyRow(0, 0));
    assertArrayEquals(wide.values()[0], wideTarget.valueRow(0, 0));
    shipper(SECRET, FP).ship(0, "big", slots, rows).get(10, TimeUnit.SECONDS);
    assertArrayEquals(java.util.Arrays.copyOfRange(rows.keys()[2], 63 * KV_DIM, 64 * KV_DIM), target.keyRow(2, 63));
  }

  private static PeResolver fixed(InetSocketAddress at) {
    return new PeResolver() {
      @Override
      public InetSocketAddress address(int pe) {
        return at;
      }

      @Override
      public InetSocketAddress refresh(int pe, InetSocketAddress failed) {
        return at;
      }
    };
  }

  @Test
  void wrongSecretIsRefusedAndNothingWritten() throws Exception {
    start(0, 1);
    target.reserve("r", 1);
    byte[] other = SECRET.clone();
    other[0] ^= 1;
    ExecutionException e = assertThrows(ExecutionException.class, () -> shipper(other, FP)
        .ship(0, "r", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 5)).get(10, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("wrong world secret"), reason(e));
    assertTrue(target.untouched());
    assertEquals(1, target.refusedByTransport(), "the engine is told, so that it counts the refusal");
  }

  @Test
  void wrongModelIsRefusedAndNothingWritten() throws Exception {
    start(0, 1);
    target.reserve("r", 1);
    ExecutionException e = assertThrows(ExecutionException.class, () -> shipper(SECRET, "fingerprint-of-model-b")
        .ship(0, "r", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 5)).get(10, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("model mismatch"), reason(e));
    // Stages see the KvTransferException itself, not a CompletionException around it.
    Throwable seen = shipper.ship(0, "r", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 5))
        .handle((v, t) -> t).get(10, TimeUnit.SECONDS);
    assertInstanceOf(KvTransferException.class, seen);
    assertTrue(target.untouched());
    assertEquals(2, target.refusedByTransport());
  }

  @Test
  void closedShipperFailsClearly() throws Exception {
    start(0, 1);
    shipper(SECRET, FP).close();
    ExecutionException e = assertThrows(ExecutionException.class, () -> shipper
        .ship(0, "r", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 5)).get(10, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("the KV shipper is closed"), reason(e));
  }

  @Test
  void unreservedSlotIsRefusedByTheEngineAndNothingWritten() throws Exception {
    start(0, 1);
    target.reserve("r", 1, 2);
    ExecutionException e = assertThrows(ExecutionException.class, () -> shipper(SECRET, FP)
        .ship(0, "r", new int[] {1, 9}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 2, 5)).get(10, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("slot 9 is not reserved for request r"), reason(e));
    assertTrue(target.untouched());
    assertEquals(0, target.refusedByTransport(), "the engine's own refusal is not reported back to it");
  }

  @Test
  void corruptedChecksumIsRefusedAndNothingWritten() throws Exception {
    start(0, 1);
    target.reserve("r", 1);
    shipper(SECRET, FP).tamperWithChecksums(crc -> crc ^ 0x10);
    ExecutionException e = assertThrows(ExecutionException.class, () -> shipper
        .ship(0, "r", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 5)).get(10, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("checksum mismatch"), reason(e));
    assertTrue(target.untouched());
    assertEquals(1, target.refusedByTransport());
  }

  @Test
  void wrongPeIsRefusedAsStale() throws Exception {
    start(4, 2);
    target.reserve("r", 1);
    // The shipper is told PE 7 lives here (a stale table); the greeting shows it does not.
    ExecutionException e = assertThrows(ExecutionException.class, () -> shipper(SECRET, FP)
        .ship(7, "r", new int[] {1}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 5)).get(10, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("now holds PEs 4..5, not 7"), reason(e));
    assertTrue(target.untouched());
  }

  @Test
  void mismatchedRowsAreRefusedBeforeSending() throws Exception {
    start(0, 1);
    ExecutionException e = assertThrows(ExecutionException.class, () -> shipper(SECRET, FP)
        .ship(0, "r", new int[] {1, 2}, ReservingKvTargetDouble.rows(LAYERS, KV_DIM, 1, 5)).get(10, TimeUnit.SECONDS));
    assertTrue(reason(e).contains("1 KV rows for 2 destination slots"), reason(e));
  }

  @Test
  void replayedHeaderIsRefused() throws Exception {
    start(0, 1);
    target.reserve("r", 1);
    // A raw peer that signs correctly but reuses sequence 5 on a fresh connection.
    try (SocketChannel ch = SocketChannel.open(receiver.address())) {
      KvWire.Greeting g = KvWire.readGreeting(ch);
      KvWire.Header h = new KvWire.Header(5, 0, "r", FP, LAYERS, KV_DIM, new int[] {1});
      byte[] body = h.encodeBody();
      KvWire.writeHeader(ch, body, new WorldSecret(SECRET).proof(KvWire.HEADER_PURPOSE, g.nonce(), body));
      String verdict = KvWire.readVerdict(ch);
      assertTrue(verdict != null && verdict.contains("out-of-order transfer 5 (expected 0)"), verdict);
    }
    assertTrue(target.untouched());
  }

  @Test
  void garbageIsRefusedWithoutHarm() throws Exception {
    start(0, 1);
    try (SocketChannel ch = SocketChannel.open(receiver.address())) {
      KvWire.readGreeting(ch);
      ch.write(ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes()));
      ByteBuffer b = ByteBuffer.allocate(16);
      try {
        assertEquals(-1, ch.read(b), "the receiver closes on a foreign protocol");
      } catch (java.net.SocketException reset) {
        // closed with our bytes unread: the kernel answers with a reset, which is a close too
      }
    }
    assertTrue(target.untouched());
  }
}
