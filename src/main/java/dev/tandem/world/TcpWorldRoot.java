package dev.tandem.world;

import dev.tandem.world.transport.WorldSecret;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The world root over TCP: a Vert.x {@link NetServer} whose connections speak newline-delimited
 * JSON ({@link RootConnection}); rules live in {@link WorldMembership}. It runs on the Vert.x it is
 * given (the supervisor's) or on a small one of its own ({@link #start(String, int)}, for callers
 * outside Vert.x). Engines keep blocking sockets on their side ({@link WorldRootClient}).
 */
final class TcpWorldRoot implements WorldRoot {
  private static final Logger LOG = LoggerFactory.getLogger(TcpWorldRoot.class);
  /** How long a blocking caller waits for its own root to listen, or to close. */
  private static final long OWN_VERTX_WAIT_SECONDS = 30;

  private final Vertx vertx;
  private final boolean ownsVertx;
  private final NetServer server;
  private final WorldUid uid;
  private final WorldSecret secret;
  private final WorldMembership<NetSocket> membership;
  private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private TcpWorldRoot(Vertx vertx, boolean ownsVertx, NetServer server, WorldUid uid, int npes,
      boolean fixed) {
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    this.server = server;
    this.uid = uid;
    this.secret = new WorldSecret(uid.secret());
    this.membership = new WorldMembership<>(npes, fixed);
  }

  /** Starts a root on {@code vertx}; never blocks the caller (name lookups run on a worker). */
  static Future<WorldRoot> start(Vertx vertx, String bindHost, int npes, boolean fixed) {
    return listen(vertx, false, bindHost, npes, fixed).map(root -> root);
  }

  /** Starts a root on a Vert.x of its own and waits until it listens; {@link #close} closes both. */
  static TcpWorldRoot start(String bindHost, int npes) throws WorldException {
    Vertx own = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
        .setInternalBlockingPoolSize(1));
    try {
      return listen(own, true, bindHost, npes, false).toCompletionStage().toCompletableFuture()
          .get(OWN_VERTX_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      own.close();
      throw e.getCause() instanceof WorldException w ? w : new WorldException(e.getCause().toString(), e);
    } catch (InterruptedException | TimeoutException e) {
      own.close();
      throw new WorldException("the world root on " + bindHost + " did not start: " + e, e);
    }
  }

  private static Future<TcpWorldRoot> listen(Vertx vertx, boolean ownsVertx, String bindHost, int npes,
      boolean fixed) {
    if (npes < 1) {
      return Future.failedFuture(new WorldException("a world needs at least one PE, got npes=" + npes));
    }
    // Connections before the uid exists cannot be engines (nobody knows the secret yet): refused.
    AtomicReference<TcpWorldRoot> ready = new AtomicReference<>();
    NetServer server = vertx.createNetServer(new NetServerOptions().setTcpNoDelay(true)
        .setTcpKeepAlive(true).setAcceptBacklog(64));
    server.connectHandler(socket -> {
      TcpWorldRoot root = ready.get();
      if (root == null) {
        socket.close();
      } else {
        root.accept(socket);
      }
    });
    return vertx.executeBlocking(() -> addresses(bindHost))
        .compose(a -> server.listen(0, a[0].getHostAddress()).map(s -> {
          TcpWorldRoot root = new TcpWorldRoot(vertx, ownsVertx, server,
              WorldUid.create(new InetSocketAddress(a[1], s.actualPort())), npes, fixed);
          ready.set(root);
          LOG.info("world root for {} PEs listening on {}", npes, root.uid.rootText());
          return root;
        }))
        .recover(e -> {
          server.close();
          return Future.failedFuture(e instanceof WorldException ? e : new WorldException(
              "could not start the world root on " + bindHost + ": " + e.getMessage(), e));
        });
  }

  /** The address to bind, and the one engines dial (this host's when binding every interface). */
  private static InetAddress[] addresses(String bindHost) throws UnknownHostException {
    InetAddress bind = InetAddress.getByName(bindHost);
    return new InetAddress[] {bind, bind.isAnyLocalAddress() ? thisHost() : bind};
  }

  private static InetAddress thisHost() {
    try {
      return InetAddress.getLocalHost();
    } catch (UnknownHostException e) {
      return InetAddress.getLoopbackAddress();
    }
  }

  private void accept(NetSocket socket) {
    if (closed) {
      socket.close();
      return;
    }
    open.add(socket);
    new RootConnection(vertx, this, socket).start();
  }

  /** A connection closed (called by it). */
  void forget(NetSocket socket) {
    open.remove(socket);
  }

  @Override
  public int[] uid() {
    return uid.encode();
  }

  @Override
  public int npes() {
    return membership.npes();
  }

  @Override
  public int joinedPes() {
    return membership.table().joinedPes().size();
  }

  /** The current PE table (for diagnostics and tests). */
  PeTable table() {
    return membership.table();
  }

  WorldMembership<NetSocket> membership() {
    return membership;
  }

  WorldSecret secret() {
    return secret;
  }

  boolean closed() {
    return closed;
  }

  String wrongSecret() {
    return "wrong world secret: this engine's uid was not made by the world root at " + uid.rootText()
        + " (a uid from another or an earlier router run?)";
  }

  /**
   * Stops listening and drops every connection (members see the root go, no leave is announced).
   * On a Vert.x of its own, also closes that and waits for it unless called on one of its threads.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    open.forEach(NetSocket::close);
    Future<Void> done = server.close();
    if (ownsVertx) {
      done = done.eventually(vertx::close);
      if (!Context.isOnEventLoopThread()) {
        try {
          done.toCompletionStage().toCompletableFuture().get(OWN_VERTX_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
          LOG.debug("closing the world root's Vert.x: {}", e.toString());
        }
      }
    }
    LOG.info("world root {} closed", uid.rootText());
  }
}
