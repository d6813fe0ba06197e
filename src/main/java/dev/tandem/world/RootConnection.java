package dev.tandem.world;

import dev.tandem.world.WorldProtocol.Registration;
import dev.tandem.world.transport.WorldSecret;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the world root ({@link WorldProtocol}), as a small state machine on the
 * root's event loop: greet with a nonce; the first line is a lookup (answer, close), a
 * registration (admit or refuse) or a mistake (error, close); a member then says nothing more and
 * its connection's close is how the root learns that its engine left.
 */
final class RootConnection {
  private static final Logger LOG = LoggerFactory.getLogger(RootConnection.class);
  /** How long a new connection may take to say who it is. */
  static final long HANDSHAKE_TIMEOUT_MS = 10_000;
  /** Longest line accepted (the old blocking reader's limit). */
  static final int MAX_LINE = 1 << 20;

  private final Vertx vertx;
  private final TcpWorldRoot root;
  private final NetSocket socket;
  private final byte[] nonce = WorldSecret.nonce();
  private long handshakeTimer = -1;
  private boolean greeted;
  /** Cut for breaking the protocol: what is still buffered is not read. */
  private boolean cut;
  /** Set once admitted: what to withdraw when the connection closes. */
  private Registration member;

  RootConnection(Vertx vertx, TcpWorldRoot root, NetSocket socket) {
    this.vertx = vertx;
    this.root = root;
    this.socket = socket;
  }

  void start() {
    RecordParser lines = RecordParser.newDelimited("\n", socket).maxRecordSize(MAX_LINE);
    lines.handler(this::onLine);
    lines.exceptionHandler(this::drop); // a line past MAX_LINE
    socket.exceptionHandler(e -> {
      LOG.debug("world connection from {} broke: {}", socket.remoteAddress(), e.toString());
      socket.close(); // a member's engine died: its close handler reports the leave
    });
    socket.closeHandler(v -> onClose());
    handshakeTimer = vertx.setTimer(HANDSHAKE_TIMEOUT_MS, id -> {
      handshakeTimer = -1;
      drop(new IllegalStateException("it said nothing within " + HANDSHAKE_TIMEOUT_MS + " ms"));
    });
    write(WorldProtocol.hello(nonce, root.npes()));
  }

  private void onLine(Buffer line) {
    if (greeted || cut) {
      return; // members say nothing more; the connection stays open only to watch for its close
    }
    greeted = true;
    cancelHandshakeTimer();
    JsonObject message;
    try {
      message = new JsonObject(line);
    } catch (DecodeException | ClassCastException e) {
      drop(new IllegalArgumentException("malformed world protocol message: " + e.getMessage(), e));
      return;
    }
    try {
      String type = String.valueOf(message.getValue("type", ""));
      if (WorldProtocol.LOOKUP.equals(type)) {
        answerAndClose(WorldProtocol.verifyLookup(root.secret(), nonce, message.getString("proof"))
            ? WorldProtocol.table(root.table()) : WorldProtocol.error(root.wrongSecret()));
      } else if (WorldProtocol.REGISTER.equals(type)) {
        register(message);
      } else {
        answerAndClose(WorldProtocol.error("unknown world protocol message type '" + type + "'"));
      }
    } catch (RuntimeException e) { // a field of the wrong type
      drop(new IllegalArgumentException("malformed world protocol message: " + e, e));
    }
  }

  private void register(JsonObject message) {
    Registration r;
    try {
      r = Registration.fromJson(message);
    } catch (ClassCastException | NullPointerException e) {
      answerAndClose(WorldProtocol.error("malformed registration: " + message.encode()));
      return;
    }
    if (r.member() == null || r.kvHost() == null) {
      answerAndClose(WorldProtocol.error("malformed registration: member and kv_host are required"));
      return;
    }
    if (!r.verify(root.secret(), nonce, message.getString("proof"))) {
      LOG.warn("refused an engine claiming PEs from {}: wrong world secret", r.peStart());
      answerAndClose(WorldProtocol.error(root.wrongSecret()));
      return;
    }
    List<WorldMembership.Delivery<NetSocket>> deliveries;
    try {
      deliveries = root.membership().register(r, socket);
    } catch (WorldMembership.Refusal e) {
      LOG.warn("refused an engine (PEs {}..{}, KV at {}:{}): {}", r.peStart(), r.peStart() + r.numPes() - 1,
          r.kvHost(), r.kvPort(), e.getMessage());
      answerAndClose(WorldProtocol.error(e.getMessage()));
      return;
    }
    member = r;
    PeTable table = root.table();
    LOG.info("engine joined the world: PEs {}..{}, KV receiver {}:{} ({} of {} PEs joined)", r.peStart(),
        r.peStart() + r.numPes() - 1, r.kvHost(), r.kvPort(), table.joinedPes().size(), root.npes());
    deliver(deliveries);
  }

  private void onClose() {
    cancelHandshakeTimer();
    root.forget(socket);
    if (member != null && !root.closed()) {
      LOG.info("engine with PEs {}..{} (KV {}:{}) left the world", member.peStart(),
          member.peStart() + member.numPes() - 1, member.kvHost(), member.kvPort());
      deliver(root.membership().leave(member.member(), socket));
    } else {
      LOG.debug("world connection from {} closed", socket.remoteAddress());
    }
  }

  private void cancelHandshakeTimer() {
    if (handshakeTimer >= 0) {
      vertx.cancelTimer(handshakeTimer);
      handshakeTimer = -1;
    }
  }

  private void write(JsonObject message) {
    socket.write(line(message));
  }

  /** The last message of a connection that is not a member: the peer reads it, then the close. */
  private void answerAndClose(JsonObject message) {
    socket.end(line(message));
  }

  /** A peer that broke the protocol: logged, and cut. */
  private void drop(Throwable why) {
    cut = true;
    LOG.warn("world connection from {} failed: {}", socket.remoteAddress(), why.getMessage());
    socket.close();
  }

  private static Buffer line(JsonObject message) {
    return message.toBuffer().appendByte((byte) '\n');
  }

  /** Tables and progress for every live member; a write to a member that just went is lost, as it should be. */
  private static void deliver(List<WorldMembership.Delivery<NetSocket>> deliveries) {
    for (WorldMembership.Delivery<NetSocket> d : deliveries) {
      d.link().write(line(d.message()));
    }
  }
}
