package dev.tandem.world;

import dev.tandem.kv.KvReceiveTarget;
import dev.tandem.kv.KvShipper;
import dev.tandem.kv.KvTransferException;
import dev.tandem.world.WorldProtocol.Registration;
import dev.tandem.world.transport.KvReceiver;
import dev.tandem.world.transport.PeResolver;
import dev.tandem.world.transport.TcpKvShipper;
import dev.tandem.world.transport.WorldSecret;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A builtin engine's membership in a Tandem TCP world: its KV receiver, its registration with the
 * world root (kept open so that the root pushes new PE tables and notices when this engine goes),
 * and a shipper that finds peers through the newest table.
 */
final class TcpEngineWorld implements EngineWorld, PeResolver {
  private static final Logger LOG = LoggerFactory.getLogger(TcpEngineWorld.class);
  static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(5);

  private final WorldInitConfig config;
  private final WorldUid uid;
  private final int numPes;
  private final KvReceiver receiver;
  private final TcpKvShipper shipper;
  private final JsonLineSocket rootConnection;
  private final AtomicReference<PeTable> table;
  private volatile boolean closed;

  private TcpEngineWorld(WorldInitConfig config, WorldUid uid, int numPes, KvReceiver receiver, String fingerprint,
      WorldRootClient.Joined joined) {
    this.config = config;
    this.uid = uid;
    this.numPes = numPes;
    this.receiver = receiver;
    this.rootConnection = joined.connection();
    this.table = new AtomicReference<>(joined.table());
    this.shipper = new TcpKvShipper(new WorldSecret(uid.secret()), fingerprint, this);
  }

  static EngineWorld join(String initConfigJson, int numPes, String bindHost, KvReceiveTarget target,
      String modelFingerprint, Duration timeout) throws WorldException {
    WorldInitConfig config = WorldInitConfig.parse(initConfigJson);
    WorldUid uid;
    try {
      uid = WorldUid.decode(config.uid());
    } catch (WorldException e) {
      throw new WorldException(ENV + ": " + e.getMessage(), e);
    }
    if (numPes < 1 || config.peStart() + numPes > config.npes()) {
      throw new WorldException("this engine holds " + numPes + " PE(s) from pe_start " + config.peStart()
          + ", beyond the world's npes " + config.npes() + " (" + ENV + " and the engine's device count disagree)");
    }
    if (modelFingerprint == null || modelFingerprint.isEmpty()) {
      throw new IllegalArgumentException("a model fingerprint is required");
    }
    java.util.Objects.requireNonNull(target, "target");
    KvReceiver receiver;
    try {
      receiver = KvReceiver.start(bindHost, new KvReceiver.ReceiverPolicy(config.peStart(), numPes,
          new WorldSecret(uid.secret()), modelFingerprint, target, KvReceiver.ReceiverPolicy.defaultMaxPayloadBytes()));
    } catch (IOException e) {
      throw new WorldException(e.getMessage(), e);
    }
    String member = UUID.randomUUID().toString();
    InetSocketAddress kv = receiver.address();
    WorldRootClient.Joined joined;
    try {
      joined = WorldRootClient.register(uid, local -> new Registration(member, config.npes(), config.peStart(),
          numPes, advertised(kv.getAddress(), local), kv.getPort()), timeout);
    } catch (WorldException | RuntimeException e) {
      receiver.close();
      throw e;
    }
    TcpEngineWorld world = new TcpEngineWorld(config, uid, numPes, receiver, modelFingerprint, joined);
    world.watchRoot();
    LOG.info("joined the world at {}: PEs {}..{} of {}, KV receiver {}", uid.rootText(), config.peStart(),
        config.peStart() + numPes - 1, config.npes(), kv);
    return world;
  }

  /** A receiver on every interface is announced under the address this engine reaches the root from. */
  private static String advertised(InetAddress bound, InetAddress towardsRoot) {
    return (bound.isAnyLocalAddress() ? towardsRoot : bound).getHostAddress();
  }

  /** Takes the tables the root pushes when engines leave or rejoin. */
  private void watchRoot() {
    Thread t = new Thread(() -> {
      try {
        while (!closed) {
          JsonObject message = rootConnection.read();
          if (WorldProtocol.TABLE.equals(message.getString("type"))) {
            adopt(PeTable.fromJson(message.getJsonObject("table")));
          }
        }
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("lost the connection to the world root at {} ({}); peers that restart will be found by lookup",
              uid.rootText(), e.getMessage());
        }
      }
    }, "tandem-world-watch-" + config.peStart());
    t.setDaemon(true);
    t.start();
  }

  private PeTable adopt(PeTable newer) {
    return table.accumulateAndGet(newer, (old, fresh) -> fresh.version() > old.version() ? fresh : old);
  }

  @Override
  public InetSocketAddress address(int pe) throws KvTransferException {
    PeTable.Entry e = table.get().owner(pe).orElse(null);
    if (e != null && e.live()) {
      return new InetSocketAddress(e.kvHost(), e.kvPort());
    }
    return refresh(pe, null);
  }

  @Override
  public InetSocketAddress refresh(int pe, InetSocketAddress failed) throws KvTransferException {
    if (pe < 0) {
      throw new KvTransferException("PE " + pe + " is not in the world (its PEs are 0.." + (npes() - 1) + ")");
    }
    PeTable current;
    try {
      current = adopt(WorldRootClient.lookup(uid, LOOKUP_TIMEOUT));
    } catch (WorldException ex) {
      throw new KvTransferException("PE " + pe + " unreachable" + (failed == null ? "" : " at " + failed)
          + ", and " + ex.getMessage(), ex);
    }
    if (pe >= current.npes()) {
      throw new KvTransferException("PE " + pe + " is not in the world (its PEs are 0.." + (current.npes() - 1) + ")");
    }
    PeTable.Entry e = current.owner(pe).orElseThrow(() -> new KvTransferException("no engine holds PE " + pe
        + " in the world at " + uid.rootText()));
    if (!e.live()) {
      throw new KvTransferException("the engine holding PE " + pe + " (KV " + e.kvAddress()
          + ") has left the world; it may be restarting");
    }
    return new InetSocketAddress(e.kvHost(), e.kvPort());
  }

  /** The newest PE table this engine knows (for diagnostics and tests). */
  PeTable table() {
    return table.get();
  }

  InetSocketAddress kvAddress() {
    return receiver.address();
  }

  @Override
  public int peStart() {
    return config.peStart();
  }

  @Override
  public int numPes() {
    return numPes;
  }

  /** The world's size as the root last said: a world that is not fixed grows as engines are added. */
  @Override
  public int npes() {
    return Math.max(config.npes(), table.get().npes());
  }

  @Override
  public int[] uid() {
    return config.uid();
  }

  @Override
  public KvShipper shipper() {
    return shipper;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    shipper.close();
    receiver.close();
    rootConnection.close();
    LOG.info("left the world at {} (PEs {}..{})", uid.rootText(), config.peStart(), config.peStart() + numPes - 1);
  }
}
