package dev.tandem.router.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.policy.EngineSnapshot;
import dev.tandem.router.policy.RoutePolicy;
import dev.tandem.router.registry.EngineRegistry;
import dev.tandem.router.upstream.EngineClient;
import dev.tandem.router.upstream.UpstreamException;
import io.vertx.core.Vertx;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EngineCallsTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  /**
   * The router's event loops share the registry: an engine an operator removed on one loop
   * between another loop's snapshot and its lease fails that attempt as a retriable engine
   * failure (the flow tries another engine), not as an unexplained 500.
   */
  @Test
  void anEngineRemovedAfterTheSnapshotFailsTheAttemptAsUnreachable() {
    EngineRegistry registry = new EngineRegistry(System::currentTimeMillis);
    registry.apply(new EngineStatus(4, "http://127.0.0.1:9", EngineRole.BOTH, 4, 1,
        EngineState.READY, 0, null));
    EngineCalls calls = new EngineCalls(registry, new RoutePolicy(),
        new EngineClient(vertx, 1000, 1), new RouterOptions(), new RouterMetrics());
    List<EngineSnapshot> snapshot = registry.snapshot();
    assertEquals(4, calls.status(snapshot.get(0)).id());
    calls.lease(4).release();
    registry.remove(4);
    for (UpstreamException e : List.of(
        assertThrows(UpstreamException.class, () -> calls.status(snapshot.get(0))),
        assertThrows(UpstreamException.class, () -> calls.lease(4)))) {
      assertEquals(4, e.engineId());
      assertEquals(UpstreamException.Kind.UNREACHABLE, e.kind());
      assertTrue(e.retriable());
      assertTrue(e.getMessage().contains("removed from the fleet"), e.getMessage());
    }
    assertEquals(0, registry.totalInFlight());
  }
}
