package dev.tandem.world;

import dev.tandem.retry.Backoff;
import dev.tandem.world.WorldProtocol.Registration;
import dev.tandem.world.transport.WorldSecret;
import io.vertx.core.json.JsonObject;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's side of the world root protocol ({@link WorldProtocol}): register, and look up
 * tables. Blocking on purpose ({@link JsonLineSocket}): registration runs once on the engine's
 * start-up thread before it serves anything, and lookups on the KV shipper's thread.
 */
final class WorldRootClient {
  private static final Logger LOG = LoggerFactory.getLogger(WorldRootClient.class);
  /** Between tries to reach a root that is not listening yet. */
  private static final Backoff CONNECT_BACKOFF = Backoff.ofMillis(50, 500);

  private WorldRootClient() {}

  /** A finished registration: the connection the root pushes new tables on, and the first table. */
  record Joined(JsonLineSocket connection, PeTable table) {}

  /**
   * Registers and blocks until the world is formed, the root refuses, or {@code timeout} passes.
   * {@code registrationFor} gets this side's address of the connection to the root.
   */
  static Joined register(WorldUid uid, Function<InetAddress, Registration> registrationFor, Duration timeout)
      throws WorldException {
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonLineSocket io = connect(uid, deadline, timeout);
    // The engine's own address as the root sees it: what peers dial when its receiver listens on all interfaces.
    Registration registration = registrationFor.apply(io.socket().getLocalAddress());
    boolean joined = false;
    JsonObject lastWaiting = null;
    try {
      byte[] nonce = hello(io, uid, deadline, timeout);
      io.write(registration.toJson(new WorldSecret(uid.secret()), nonce));
      while (true) {
        JsonObject message = readBefore(io, deadline);
        String type = message.getString("type", "");
        if (WorldProtocol.TABLE.equals(type)) {
          joined = true;
          return new Joined(io, PeTable.fromJson(message.getJsonObject("table")));
        }
        if (WorldProtocol.ERROR.equals(type)) {
          throw new WorldException("the world root at " + uid.rootText() + " refused this engine: "
              + message.getString("message"));
        }
        if (WorldProtocol.WAITING.equals(type)) {
          lastWaiting = message;
          LOG.info("waiting for the world to form: PEs {} of {} joined, missing {}", message.getJsonArray("joined"),
              message.getInteger("npes"), message.getJsonArray("missing"));
        }
      }
    } catch (SocketTimeoutException e) {
      String progress = lastWaiting == null ? ""
          : ": PEs " + lastWaiting.getJsonArray("joined") + " of npes " + lastWaiting.getInteger("npes")
              + " joined, still missing " + lastWaiting.getJsonArray("missing");
      throw new WorldException("the world did not form within " + seconds(timeout) + progress
          + " (engines for the missing PEs have not joined the world root at " + uid.rootText() + ")");
    } catch (EOFException e) {
      throw new WorldException("the world root at " + uid.rootText()
          + " closed the connection before the world formed (did the router stop?)");
    } catch (IOException e) {
      throw new WorldException("lost the connection to the world root at " + uid.rootText() + ": " + e.getMessage(), e);
    } finally {
      if (!joined) {
        io.close();
      }
    }
  }

  /** Asks the root for the current PE table (after a peer moved or left). */
  static PeTable lookup(WorldUid uid, Duration timeout) throws WorldException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (JsonLineSocket io = connect(uid, deadline, timeout)) {
      byte[] nonce = hello(io, uid, deadline, timeout);
      io.write(WorldProtocol.lookup(new WorldSecret(uid.secret()), nonce));
      JsonObject message = readBefore(io, deadline);
      if (WorldProtocol.TABLE.equals(message.getString("type"))) {
        return PeTable.fromJson(message.getJsonObject("table"));
      }
      throw new WorldException("the world root at " + uid.rootText() + " refused the lookup: "
          + message.getString("message"));
    } catch (IOException e) {
      throw new WorldException("could not look up the PE table at the world root " + uid.rootText() + ": "
          + e.getMessage(), e);
    }
  }

  /** Connects, retrying while the root is not listening yet, until the deadline. */
  private static JsonLineSocket connect(WorldUid uid, long deadline, Duration timeout) throws WorldException {
    IOException last = null;
    for (int attempt = 1; ; attempt++) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new WorldException("could not reach the world root at " + uid.rootText() + " within "
            + seconds(timeout) + (last == null ? "" : " (last error: " + last.getMessage() + ")"));
      }
      Socket socket = new Socket();
      try {
        socket.setTcpNoDelay(true);
        socket.setKeepAlive(true);
        socket.connect(uid.root(), (int) Math.max(1, Math.min(remaining / 1_000_000, 5_000)));
        return new JsonLineSocket(socket);
      } catch (IOException e) {
        last = e;
        try {
          socket.close();
        } catch (IOException ignored) {
          // never connected
        }
      }
      // Back off before the next attempt: the root may not be listening yet.
      LockSupport.parkNanos(Math.min(CONNECT_BACKOFF.delay(attempt).toNanos(),
          Math.max(0, deadline - System.nanoTime())));
      if (Thread.currentThread().isInterrupted()) {
        throw new WorldException("interrupted while reaching the world root at " + uid.rootText());
      }
    }
  }

  private static byte[] hello(JsonLineSocket io, WorldUid uid, long deadline, Duration timeout)
      throws IOException, WorldException {
    JsonObject hello;
    try {
      hello = readBefore(io, deadline);
    } catch (SocketTimeoutException e) {
      throw new WorldException("the service at " + uid.rootText() + " did not greet as a Tandem world root within "
          + seconds(timeout));
    }
    byte[] nonce = WorldProtocol.unb64(hello.getString("nonce"));
    if (!WorldProtocol.HELLO.equals(hello.getString("type")) || nonce == null) {
      throw new WorldException("the service at " + uid.rootText() + " is not a Tandem world root");
    }
    if (hello.getInteger("protocol", -1) != WorldProtocol.VERSION) {
      throw new WorldException("the world root at " + uid.rootText() + " speaks protocol "
          + hello.getValue("protocol") + ", this engine " + WorldProtocol.VERSION + " (mixed Tandem versions?)");
    }
    return nonce;
  }

  private static JsonObject readBefore(JsonLineSocket io, long deadline) throws IOException {
    long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
    if (remainingMs <= 0) {
      throw new SocketTimeoutException("deadline passed");
    }
    io.socket().setSoTimeout((int) Math.min(remainingMs, Integer.MAX_VALUE));
    return io.read();
  }

  static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : String.format("%.1f s", ms / 1000.0);
  }
}
