package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.Eventually;
import dev.tandem.world.transport.ReservingKvTargetDouble;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The world root on a Vert.x it is given (the supervisor's), started from an event loop: engines
 * (blocking clients, as in the engine process) form the world, one leaves and the other hears it,
 * the restarted one is re-admitted and its peer's table follows; protocol mistakes are answered
 * and cut.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class WorldRootOnVertxTest {
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /** Starts the root from an event loop of {@code vertx}, as SupervisorVerticle does. */
  private Future<WorldRoot> root(Vertx vertx, int npes) {
    Promise<WorldRoot> started = Promise.promise();
    vertx.runOnContext(v -> WorldRoot.start(vertx, "127.0.0.1", npes).onComplete(started));
    return started.future().onSuccess(r -> toClose.add(r));
  }

  /** An engine joining on a worker thread (joining blocks until the world formed). */
  private Future<TcpEngineWorld> join(Vertx vertx, WorldRoot root, int peStart) {
    return vertx.executeBlocking(() -> {
      EngineWorld w = EngineWorld.join(new WorldInitConfig(root.uid(), root.npes(), peStart).toJson(), 1,
          "127.0.0.1", new ReservingKvTargetDouble(2, 8, 32), "fp", Duration.ofSeconds(20));
      synchronized (toClose) {
        toClose.add(w);
      }
      return (TcpEngineWorld) w;
    }, false);
  }

  private static Future<Void> until(Vertx vertx, String what, BooleanSupplier condition) {
    return Eventually.untilTrue(vertx, Duration.ofSeconds(20), what, condition);
  }

  @Test
  void leaveAndRejoinReachThePeers(Vertx vertx, VertxTestContext ctx) {
    root(vertx, 2).compose(root -> Future.all(join(vertx, root, 0), join(vertx, root, 1)).compose(both -> {
      TcpEngineWorld p = both.resultAt(0);
      TcpEngineWorld d = both.resultAt(1);
      ctx.verify(() -> {
        assertTrue(p.table().complete());
        assertEquals(p.table().entries(), d.table().entries());
      });
      int oldPort = d.kvAddress().getPort();
      long oldGeneration = p.table().owner(1).orElseThrow().generation();
      d.close(); // the decode engine dies: the root tells P
      return until(vertx, "P to hear that PE 1 left", () -> !p.table().owner(1).orElseThrow().live())
          .compose(v -> join(vertx, root, 1)) // ... and its restart is admitted again
          .compose(d2 -> until(vertx, "P to see PE 1 back", () -> p.table().owner(1).orElseThrow().live()).map(v -> {
            ctx.verify(() -> {
              PeTable.Entry moved = p.table().owner(1).orElseThrow();
              assertEquals(d2.kvAddress().getPort(), moved.kvPort(), "P's table follows the restart");
              assertNotEquals(oldPort, moved.kvPort());
              assertTrue(moved.generation() > oldGeneration);
              assertTrue(d2.table().complete());
            });
            return v;
          }));
    })).onComplete(ctx.succeedingThenComplete());
  }

  /**
   * A raw client, blocking as engines are: reads the hello, sends {@code bytes}, and collects what
   * the root answers until it closes the connection.
   */
  private static Future<List<JsonObject>> exchange(Vertx vertx, WorldRoot root, byte[] bytes) {
    return vertx.executeBlocking(() -> {
      InetSocketAddress address = WorldUid.decode(root.uid()).root();
      List<JsonObject> received = new ArrayList<>();
      try (JsonLineSocket io = new JsonLineSocket(new Socket(address.getAddress(), address.getPort()))) {
        io.socket().setSoTimeout(15_000);
        received.add(io.read());
        try {
          io.socket().getOutputStream().write(bytes);
          io.socket().getOutputStream().flush();
        } catch (IOException cutWhileWriting) {
          return received;
        }
        while (true) {
          received.add(io.read());
        }
      } catch (EOFException | SocketException closedByTheRoot) {
        return received;
      }
    }, false);
  }

  private static byte[] line(String text) {
    return (text + "\n").getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void protocolMistakesAreAnsweredAndCut(Vertx vertx, VertxTestContext ctx) {
    root(vertx, 1).compose(root -> exchange(vertx, root, line("{\"type\":\"dance\"}"))
        .compose(unknown -> {
          ctx.verify(() -> {
            assertEquals("hello", unknown.get(0).getString("type"));
            assertEquals(1, unknown.get(0).getInteger("npes"));
            assertEquals("error", unknown.get(1).getString("type"));
            assertEquals("unknown world protocol message type 'dance'", unknown.get(1).getString("message"));
          });
          return exchange(vertx, root, line("{\"type\":\"lookup\",\"proof\":\"AAAA\"}"));
        })
        .compose(forged -> {
          ctx.verify(() -> assertTrue(forged.get(1).getString("message").startsWith("wrong world secret"),
              forged.get(1).encode()));
          return exchange(vertx, root, line("not json"));
        })
        .compose(garbage -> {
          ctx.verify(() -> assertEquals(1, garbage.size(), "cut without an answer: " + garbage));
          // a line past the limit: cut before it ends
          return exchange(vertx, root, new byte[RootConnection.MAX_LINE + 16]);
        })
        .map(tooLong -> {
          ctx.verify(() -> {
            assertEquals(1, tooLong.size());
            assertFalse(((TcpWorldRoot) root).membership().formed());
          });
          return tooLong;
        }))
        .onComplete(ctx.succeedingThenComplete());
  }
}
