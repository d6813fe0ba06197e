package dev.tandem.world.transport;

import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvShipper;
import dev.tandem.kv.KvTransferException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ships KV rows to a PE's receiver over TCP (protocol: {@link KvWire}), on its own daemon threads,
 * reusing a few idle connections per receiver. A receiver that moved (its engine restarted) is found
 * again through the {@link PeResolver}; a transfer is retried only while the receiver cannot have
 * stored anything yet.
 */
public final class TcpKvShipper implements KvShipper, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpKvShipper.class);
  private static final int MAX_IDLE_PER_RECEIVER = 4;
  private static final int ATTEMPTS = 3;
  static final int CONNECT_TIMEOUT_MS = 5_000;
  /** How long to wait for a receiver's verdict (it stores the rows before answering). */
  static final int VERDICT_TIMEOUT_MS = 120_000;
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final WorldSecret secret;
  private final String fingerprint;
  private final PeResolver resolver;
  private final Map<InetSocketAddress, Deque<KvConnection>> idle = new ConcurrentHashMap<>();
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "tandem-kv-ship-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });
  private volatile KvConnection.CrcTamper tamper = KvConnection.CrcTamper.NONE;
  private volatile boolean closed;

  public TcpKvShipper(WorldSecret secret, String fingerprint, PeResolver resolver) {
    this.secret = secret;
    this.fingerprint = fingerprint;
    this.resolver = resolver;
  }

  /** Fails with the {@link KvTransferException} itself (not wrapped), whatever stage observes it. */
  @Override
  public CompletableFuture<Void> ship(int recvRank, String requestId, int[] destSlots, KvRows rows) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    int[] slots = destSlots.clone();
    try {
      executor.execute(() -> {
        try {
          shipNow(recvRank, requestId, slots, rows);
          done.complete(null);
        } catch (KvTransferException e) {
          done.completeExceptionally(e);
        } catch (RuntimeException e) {
          LOG.error("KV transfer of request {} to PE {} failed unexpectedly", requestId, recvRank, e);
          done.completeExceptionally(new KvTransferException("KV transfer failed: " + e, e));
        }
      });
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(new KvTransferException("the KV shipper is closed"));
    }
    return done;
  }

  /** Blocking form of {@link #ship}, for callers that already run on their own thread. */
  public void shipNow(int recvRank, String requestId, int[] slots, KvRows rows) throws KvTransferException {
    checkRows(slots, rows);
    long started = System.nanoTime();
    InetSocketAddress address = resolver.address(recvRank);
    IOException lastFailure = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      KvConnection conn;
      boolean pooled;
      try {
        conn = pollIdle(address);
        pooled = conn != null;
        if (conn == null) {
          conn = KvConnection.open(address, CONNECT_TIMEOUT_MS, VERDICT_TIMEOUT_MS);
        }
      } catch (IOException e) {
        lastFailure = e;
        address = moved(recvRank, address, e);
        continue;
      }
      if (!conn.greeting().holds(recvRank)) {
        conn.close();
        lastFailure = new IOException(text(address) + " now holds PEs " + conn.greeting().peStart() + ".."
            + (conn.greeting().peStart() + conn.greeting().numPes() - 1) + ", not " + recvRank);
        address = moved(recvRank, address, lastFailure);
        continue;
      }
      byte[] headerProof;
      try {
        headerProof = conn.sendHeader(secret, recvRank, requestId, fingerprint, slots, rows);
      } catch (IOException e) {
        // Nothing was stored yet: safe to try again (a pooled connection may have gone stale).
        conn.close();
        lastFailure = e;
        if (!pooled) {
          address = moved(recvRank, address, e);
        }
        continue;
      } catch (KvConnection.Refused e) {
        conn.close();
        throw refused(recvRank, address, e.getMessage());
      }
      try {
        conn.sendRows(secret, headerProof, rows, tamper);
      } catch (IOException e) {
        conn.close();
        throw new KvTransferException("the KV transfer of request " + requestId + " to PE " + recvRank + " at "
            + text(address) + " broke after the receiver accepted its header: " + e.getMessage(), e);
      } catch (KvConnection.Refused e) {
        conn.close();
        throw refused(recvRank, address, e.getMessage());
      }
      release(conn);
      if (LOG.isDebugEnabled()) {
        LOG.debug("shipped {} KV rows of request {} to PE {} in {} ms", slots.length, requestId, recvRank,
            (System.nanoTime() - started) / 1_000_000);
      }
      return;
    }
    throw new KvTransferException("could not reach PE " + recvRank + "'s KV receiver at " + text(address) + " after "
        + ATTEMPTS + " attempts: " + (lastFailure == null ? "unknown error" : lastFailure.getMessage()), lastFailure);
  }

  private InetSocketAddress moved(int pe, InetSocketAddress failed, IOException why) throws KvTransferException {
    LOG.info("PE {} at {} unreachable ({}); asking the world root for its current address", pe, text(failed),
        why.getMessage());
    dropIdle(failed);
    return resolver.refresh(pe, failed);
  }

  private static KvTransferException refused(int pe, InetSocketAddress address, String reason) {
    return new KvTransferException("PE " + pe + " (" + text(address) + ") refused the KV transfer: " + reason);
  }

  static String text(InetSocketAddress a) {
    String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  private static void checkRows(int[] slots, KvRows rows) throws KvTransferException {
    if (rows.keys() == null || rows.values() == null || rows.keys().length != rows.values().length
        || rows.keys().length == 0) {
      throw new KvTransferException("KV rows need as many value layers as key layers, at least one");
    }
    if (rows.numTokens() != slots.length) {
      throw new KvTransferException(rows.numTokens() + " KV rows for " + slots.length + " destination slots");
    }
    long n = (long) rows.numTokens() * rows.kvDim();
    for (int l = 0; l < rows.keys().length; l++) {
      if (rows.keys()[l] == null || rows.values()[l] == null || rows.keys()[l].length < n
          || rows.values()[l].length < n) {
        throw new KvTransferException("layer " + l + " holds fewer than numTokens * kvDim = " + n + " floats");
      }
    }
  }

  private KvConnection pollIdle(InetSocketAddress address) {
    Deque<KvConnection> q = idle.get(address);
    KvConnection conn;
    while (q != null && (conn = q.pollFirst()) != null) {
      if (conn.isOpen()) {
        return conn;
      }
    }
    return null;
  }

  private void release(KvConnection conn) {
    Deque<KvConnection> q = idle.computeIfAbsent(conn.address(), a -> new ConcurrentLinkedDeque<>());
    if (closed || q.size() >= MAX_IDLE_PER_RECEIVER) {
      conn.close();
    } else {
      q.addFirst(conn);
    }
  }

  private void dropIdle(InetSocketAddress address) {
    Deque<KvConnection> q = idle.remove(address);
    if (q != null) {
      q.forEach(KvConnection::close);
    }
  }

  /** Test hook: the next transfers carry a checksum altered by {@code tamper}. */
  void tamperWithChecksums(KvConnection.CrcTamper tamper) {
    this.tamper = tamper;
  }

  @Override
  public void close() {
    closed = true;
    executor.shutdownNow();
    idle.keySet().forEach(this::dropIdle);
  }
}
