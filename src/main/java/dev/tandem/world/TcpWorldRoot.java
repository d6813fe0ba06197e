package dev.tandem.world;

import dev.tandem.world.WorldProtocol.Registration;
import dev.tandem.world.transport.WorldSecret;
import io.vertx.core.json.JsonObject;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The world root over TCP: one acceptor thread and one thread per member connection (members are
 * few; blocking I/O keeps each exchange a straight line). Rules live in {@link WorldMembership}.
 */
final class TcpWorldRoot implements WorldRoot {
  private static final Logger LOG = LoggerFactory.getLogger(TcpWorldRoot.class);
  /** How long a new connection may take to say who it is. */
  static final int HANDSHAKE_TIMEOUT_MS = 10_000;
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ServerSocket server;
  private final WorldUid uid;
  private final WorldSecret secret;
  private final int npes;
  private final WorldMembership<JsonLineSocket> membership;
  private final Set<JsonLineSocket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private TcpWorldRoot(ServerSocket server, WorldUid uid, int npes) {
    this.server = server;
    this.uid = uid;
    this.secret = new WorldSecret(uid.secret());
    this.npes = npes;
    this.membership = new WorldMembership<>(npes);
  }

  static TcpWorldRoot start(String bindHost, int npes) throws WorldException {
    if (npes < 1) {
      throw new WorldException("a world needs at least one PE, got npes=" + npes);
    }
    ServerSocket server;
    try {
      server = new ServerSocket(0, 64, InetAddress.getByName(bindHost));
    } catch (IOException e) {
      throw new WorldException("could not start the world root on " + bindHost + ": " + e.getMessage(), e);
    }
    InetAddress bound = server.getInetAddress();
    InetSocketAddress advertised = new InetSocketAddress(bound.isAnyLocalAddress() ? thisHost() : bound,
        server.getLocalPort());
    TcpWorldRoot root = new TcpWorldRoot(server, WorldUid.create(advertised), npes);
    Thread acceptor = new Thread(root::acceptLoop, "tandem-world-root-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
    LOG.info("world root for {} PEs listening on {}", npes, root.uid.rootText());
    return root;
  }

  /** What engines dial when the root listens on every interface. */
  private static InetAddress thisHost() {
    try {
      return InetAddress.getLocalHost();
    } catch (UnknownHostException e) {
      return InetAddress.getLoopbackAddress();
    }
  }

  @Override
  public int[] uid() {
    return uid.encode();
  }

  @Override
  public int npes() {
    return npes;
  }

  /** The current PE table (for diagnostics and tests). */
  PeTable table() {
    return membership.table();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        if (closed || server.isClosed()) {
          return;
        }
        LOG.warn("world root accept failed: {}", e.toString());
        continue;
      }
      Thread t = new Thread(() -> serve(socket), "tandem-world-member-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket socket) {
    JsonLineSocket io;
    try {
      io = new JsonLineSocket(socket);
    } catch (IOException e) {
      closeQuietly(socket);
      return;
    }
    open.add(io);
    try {
      socket.setTcpNoDelay(true);
      socket.setKeepAlive(true);
      socket.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
      byte[] nonce = WorldSecret.nonce();
      io.write(WorldProtocol.hello(nonce, npes));
      JsonObject message = io.read();
      String type = message.getString("type", "");
      if (WorldProtocol.LOOKUP.equals(type)) {
        io.write(WorldProtocol.verifyLookup(secret, nonce, message.getString("proof"))
            ? WorldProtocol.table(membership.table()) : WorldProtocol.error(wrongSecret()));
      } else if (WorldProtocol.REGISTER.equals(type)) {
        member(io, nonce, message);
      } else {
        io.write(WorldProtocol.error("unknown world protocol message type '" + type + "'"));
      }
    } catch (EOFException | SocketException e) {
      LOG.debug("world connection from {} closed: {}", socket.getRemoteSocketAddress(), e.toString());
    } catch (IOException e) {
      LOG.warn("world connection from {} failed: {}", socket.getRemoteSocketAddress(), e.toString());
    } finally {
      open.remove(io);
      io.close();
    }
  }

  /** Registers a member, then holds its connection until it closes (that is how the root learns it left). */
  private void member(JsonLineSocket io, byte[] nonce, JsonObject message) throws IOException {
    Registration r;
    try {
      r = Registration.fromJson(message);
    } catch (ClassCastException | NullPointerException e) {
      io.write(WorldProtocol.error("malformed registration: " + message.encode()));
      return;
    }
    if (r.member() == null || r.kvHost() == null) {
      io.write(WorldProtocol.error("malformed registration: member and kv_host are required"));
      return;
    }
    if (!r.verify(secret, nonce, message.getString("proof"))) {
      LOG.warn("refused an engine claiming PEs from {}: wrong world secret", r.peStart());
      io.write(WorldProtocol.error(wrongSecret()));
      return;
    }
    List<WorldMembership.Delivery<JsonLineSocket>> deliveries;
    try {
      deliveries = membership.register(r, io);
    } catch (WorldMembership.Refusal e) {
      LOG.warn("refused an engine (PEs {}..{}, KV at {}:{}): {}", r.peStart(), r.peStart() + r.numPes() - 1,
          r.kvHost(), r.kvPort(), e.getMessage());
      io.write(WorldProtocol.error(e.getMessage()));
      return;
    }
    PeTable table = membership.table();
    LOG.info("engine joined the world: PEs {}..{}, KV receiver {}:{} ({} of {} PEs joined)", r.peStart(),
        r.peStart() + r.numPes() - 1, r.kvHost(), r.kvPort(), table.joinedPes().size(), npes);
    deliver(deliveries);
    io.socket().setSoTimeout(0);
    try {
      while (!closed) {
        io.read(); // members say nothing more; reading only watches for the close
      }
    } catch (IOException e) {
      // the engine closed its world or died
    } finally {
      if (!closed) {
        LOG.info("engine with PEs {}..{} (KV {}:{}) left the world", r.peStart(), r.peStart() + r.numPes() - 1,
            r.kvHost(), r.kvPort());
        deliver(membership.leave(r.member(), io));
      }
    }
  }

  private String wrongSecret() {
    return "wrong world secret: this engine's uid was not made by the world root at " + uid.rootText()
        + " (a uid from another or an earlier router run?)";
  }

  private static void deliver(List<WorldMembership.Delivery<JsonLineSocket>> deliveries) {
    for (WorldMembership.Delivery<JsonLineSocket> d : deliveries) {
      d.link().writeQuietly(d.message());
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing world root socket: {}", e.toString());
    }
    open.forEach(JsonLineSocket::close);
    LOG.info("world root {} closed", uid.rootText());
  }
}
