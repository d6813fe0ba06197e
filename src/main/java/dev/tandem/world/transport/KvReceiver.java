package dev.tandem.world.transport;

import dev.tandem.kv.KvReceiveTarget;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's KV port: accepts transfers from its world's peers on dedicated threads (one acceptor,
 * one per connection; blocking I/O, never an event loop) and hands verified rows to the engine's
 * {@link KvReceiveTarget}.
 */
public final class KvReceiver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvReceiver.class);
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ServerSocketChannel server;
  private final ReceiverPolicy policy;
  private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closed;

  /** What every transfer is checked against. */
  public record ReceiverPolicy(int peStart, int numPes, WorldSecret secret, String fingerprint,
      KvReceiveTarget target, long maxPayloadBytes) {
    public ReceiverPolicy {
      if (numPes < 1 || peStart < 0) {
        throw new IllegalArgumentException("PEs [" + peStart + ", +" + numPes + ") are invalid");
      }
    }

    public static long defaultMaxPayloadBytes() {
      return Runtime.getRuntime().maxMemory() / 2;
    }
  }

  private KvReceiver(ServerSocketChannel server, ReceiverPolicy policy) {
    this.server = server;
    this.policy = policy;
    this.acceptor = new Thread(this::acceptLoop, "tandem-kv-accept-" + server.socket().getLocalPort());
    acceptor.setDaemon(true);
  }

  /** Listens on {@code bindHost}, random port. */
  public static KvReceiver start(String bindHost, ReceiverPolicy policy) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    try {
      server.bind(new InetSocketAddress(InetAddress.getByName(bindHost), 0), 64);
    } catch (IOException e) {
      server.close();
      throw new IOException("could not open the KV receiver on " + bindHost + ": " + e.getMessage(), e);
    }
    KvReceiver receiver = new KvReceiver(server, policy);
    receiver.acceptor.start();
    LOG.info("KV receiver for PEs [{}, {}) listening on {}", policy.peStart(), policy.peStart() + policy.numPes(),
        receiver.address());
    return receiver;
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.socket().getLocalSocketAddress();
  }

  private void acceptLoop() {
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("KV receiver accept failed: {}", e.toString());
        }
        continue;
      }
      open.add(ch);
      if (closed) { // close() may have swept the open channels before this one was added
        open.remove(ch);
        closeQuietly(ch);
        return;
      }
      Thread t = new Thread(() -> serve(ch), "tandem-kv-recv-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(SocketChannel ch) {
    try (ch) {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      new KvReceiverSession(ch, policy).run();
    } catch (IOException e) {
      if (!closed) {
        LOG.debug("KV connection from {} ended: {}", remote(ch), e.toString());
      }
    } finally {
      open.remove(ch);
    }
  }

  private static String remote(SocketChannel ch) {
    try {
      return String.valueOf(ch.getRemoteAddress());
    } catch (IOException e) {
      return "?";
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing KV server socket: {}", e.toString());
    }
    open.forEach(KvReceiver::closeQuietly);
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      LOG.debug("closing KV connection: {}", e.toString());
    }
  }
}
