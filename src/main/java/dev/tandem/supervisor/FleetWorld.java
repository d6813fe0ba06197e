package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENGINE;
import static dev.tandem.config.RouterConfig.FIXED_WORLD;
import static dev.tandem.config.RouterConfig.PYTHON;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import dev.tandem.config.EngineKind;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.fleet.WorldInit;
import dev.tandem.world.NvshmemUid;
import dev.tandem.world.WorldException;
import dev.tandem.world.WorldRoot;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The KV world of a fleet, formed before any engine starts (the seed's first step): for builtin
 * engines a {@link WorldRoot} in this process, for MLC engines an NVSHMEM uid (whose bootstrap root
 * thread also lives in this process); none in round-robin mode, where engines never exchange KV.
 * A fixed world (NVSHMEM's, or a builtin one under {@code --fixed-world}) admits no late member:
 * when one dies it is {@link #reform re-formed} under a new uid, one epoch later.
 */
public final class FleetWorld implements AutoCloseable {
  private final WorldInit init;
  private final AutoCloseable resource;
  private final WorldRoot root;
  private final int epoch;
  private final boolean fixed;
  private final String rootHost;

  private FleetWorld(WorldInit init, WorldRoot root, AutoCloseable resource, int epoch,
      boolean fixed, String rootHost) {
    this.rootHost = rootHost;
    this.init = init;
    this.root = root;
    this.resource = resource;
    this.epoch = epoch;
    this.fixed = fixed;
  }

  /**
   * Forms the world the configuration needs, without blocking the caller: the builtin root runs
   * on {@code vertx} (on the caller's context when it has one), NVSHMEM's native library is
   * loaded on a worker. Fails with a {@link WorldException}.
   */
  public static Future<FleetWorld> form(Vertx vertx, RouterConfig config) {
    return form(vertx, config, config.endpoints().get(0).host());
  }

  /**
   * The same, a builtin root listening on {@code rootHost} (the engines reach it at the address
   * the uid carries: the first endpoint's host when all run here, the router's cluster address
   * when tandem nodes run some).
   */
  public static Future<FleetWorld> form(Vertx vertx, RouterConfig config, String rootHost) {
    if (config.get(ROUTER_MODE) == RouterMode.ROUND_ROBIN) {
      return Future.succeededFuture(new FleetWorld(null, null, null, 0, false, rootHost));
    }
    return form(vertx, config, 0, rootHost);
  }

  private static Future<FleetWorld> form(Vertx vertx, RouterConfig config, int epoch,
      String rootHost) {
    int npes = config.totalPes();
    if (config.get(ENGINE) == EngineKind.MLC) {
      String python = config.get(PYTHON); // the engines' Python: its wheels may hold NVSHMEM
      return vertx.executeBlocking(() -> new FleetWorld(new WorldInit(NvshmemUid.get(python), npes),
          null, null, epoch, true, rootHost));
    }
    boolean fixed = config.get(FIXED_WORLD);
    return WorldRoot.start(vertx, rootHost, npes, fixed)
        .map(root -> new FleetWorld(new WorldInit(root.uid(), root.npes()), root, root, epoch,
            fixed, rootHost));
  }

  /** A new world for the same engines: a new uid, the next epoch (this one stays open). */
  public Future<FleetWorld> reform(Vertx vertx, RouterConfig config) {
    return form(vertx, config, epoch + 1, rootHost);
  }

  /** The world to hand every engine, or null when the mode needs none. */
  public WorldInit init() {
    return init;
  }

  public int epoch() {
    return epoch;
  }

  /** Whether this world admits no late member (a dead engine means a re-form). */
  public boolean fixed() {
    return fixed;
  }

  /**
   * Whether an engine may join after the world formed: only a builtin world that is not fixed
   * (NVSHMEM's and --fixed-world's size was fixed when they formed).
   */
  public boolean admitsMembers() {
    return root != null && !fixed;
  }

  /** The world to hand an engine added with PEs up to {@code npes} (the world grows to them). */
  public WorldInit initFor(int npes) {
    return new WorldInit(init.uid(), Math.max(npes, root.npes()));
  }

  /** PEs registered with this world's root so far, or -1 when it cannot be seen (NVSHMEM). */
  public int joinedPes() {
    return root == null ? -1 : root.joinedPes();
  }

  /** What the fleet query shows: epoch, PEs and the uid; null when there is no world. */
  public JsonObject toJson() {
    if (init == null) {
      return null;
    }
    JsonArray uid = new JsonArray();
    for (int v : init.uid()) {
      uid.add(v);
    }
    return new JsonObject().put("epoch", epoch).put("npes", root == null ? init.npes() : root.npes())
        .put("fixed", fixed).put("uid", uid);
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
