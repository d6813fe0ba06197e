package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENGINE;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import dev.tandem.config.EndpointConfig;
import dev.tandem.config.EngineKind;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.fleet.WorldInit;
import dev.tandem.world.NvshmemUid;
import dev.tandem.world.WorldException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import dev.tandem.world.WorldRoot;

/**
 * The KV world of a fleet, formed before any engine starts (the seed's first step): for builtin
 * engines a {@link WorldRoot} in this process, for MLC engines an NVSHMEM uid (whose bootstrap root
 * thread also lives in this process); none in round-robin mode, where engines never exchange KV.
 */
public final class FleetWorld implements AutoCloseable {
  private final WorldInit init;
  private final AutoCloseable resource;

  private FleetWorld(WorldInit init, AutoCloseable resource) {
    this.init = init;
    this.resource = resource;
  }

  /**
   * Forms the world the configuration needs, without blocking the caller: the builtin root runs
   * on {@code vertx} (on the caller's context when it has one), NVSHMEM's native library is
   * loaded on a worker. Fails with a {@link WorldException}.
   */
  public static Future<FleetWorld> form(Vertx vertx, RouterConfig config) {
    if (config.get(ROUTER_MODE) == RouterMode.ROUND_ROBIN) {
      return Future.succeededFuture(new FleetWorld(null, null));
    }
    int npes = config.totalPes();
    if (config.get(ENGINE) == EngineKind.MLC) {
      return vertx.executeBlocking(() -> new FleetWorld(new WorldInit(NvshmemUid.get(), npes), null));
    }
    // Engines run on this machine; they reach the root at the address they listen on themselves.
    EndpointConfig first = config.endpoints().get(0);
    return WorldRoot.start(vertx, first.host(), npes)
        .map(root -> new FleetWorld(new WorldInit(root.uid(), root.npes()), root));
  }

  /** The world to hand every engine, or null when the mode needs none. */
  public WorldInit init() {
    return init;
  }

  @Override
  public void close() {
    if (resource != null) {
      try {
        resource.close();
      } catch (Exception e) {
        org.slf4j.LoggerFactory.getLogger(FleetWorld.class).warn("closing the world root: {}",
            e.toString());
      }
    }
  }
}
