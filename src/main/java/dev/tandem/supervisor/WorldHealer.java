package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.REFORM_DRAIN;
import static dev.tandem.config.RouterConfig.RESTART_LIMIT;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;

import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LateMessages;
import dev.tandem.config.EndpointConfig;
import dev.tandem.config.RouterConfig;
import dev.tandem.fleet.WorldRejoin;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heals a KV world that admits no late member (NVSHMEM; a builtin world under
 * {@code --fixed-world}). When one of its engines dies it cannot rejoin, and the survivors keep
 * serving without KV transfers (the router sees the broken world in the engines' statuses and
 * lets decode engines prefill alone). This re-forms the world, one progress line per step:
 *
 * <ol>
 *   <li>a new world: a new uid (a new world root, or a new NVSHMEM id), the next epoch;
 *   <li>every engine that is not serving decode requests (the dead one, the prefill engines) is
 *       told to rejoin: it restarts with the new uid and waits in the join;
 *   <li>once they have joined (seen at the builtin root; NVSHMEM's cannot be watched), the decode
 *       engines that kept serving leave rotation, finish their requests (at most
 *       {@code --reform-drain}; what is left fails over) and restart with the new uid;
 *   <li>the world forms when the last one joins; every engine is READY in the new epoch, the old
 *       world is closed, and disaggregation resumes.
 * </ol>
 *
 * While the last engines restart no engine is READY; requests wait for them (the router's
 * {@code busyWaitMs}). Runs on the supervisor's context.
 */
final class WorldHealer {
  private static final Logger LOG = LoggerFactory.getLogger(WorldHealer.class);
  private static final long POLL_MS = 100;

  private final Vertx vertx;
  private final RouterConfig config;
  private final Consumer<FleetWorld> adopt;
  private final Map<Integer, EngineStatus> latest = new TreeMap<>();
  private FleetWorld world;
  private MessageConsumer<JsonObject> consumer;
  private boolean reforming;
  private boolean stopped;
  private int reforms;
  private int failuresInARow;

  /** @param adopt told of every world that is whole again (the supervisor closes the old one) */
  WorldHealer(Vertx vertx, RouterConfig config, FleetWorld world, Consumer<FleetWorld> adopt) {
    this.vertx = vertx;
    this.config = config;
    this.world = world;
    this.adopt = adopt;
  }

  /** @param current every engine's latest status so far (the supervisor's fleet view) */
  void start(JsonArray current) {
    for (Object o : current) {
      if (o instanceof JsonObject json) {
        record(json);
      }
    }
    consumer = LateMessages.dropQuietly(
        vertx.eventBus().consumer(config.addresses().engineStatus(), msg -> onStatus(msg.body())));
    latest.values().stream().filter(s -> s.state() != EngineState.READY).findFirst()
        .filter(down -> broken()).ifPresent(this::reform); // one died before we watched
  }

  private EngineStatus record(JsonObject json) {
    try {
      EngineStatus s = EngineStatus.fromJson(json);
      latest.put(s.id(), s);
      return s;
    } catch (RuntimeException e) {
      return null;
    }
  }

  void stop() {
    stopped = true;
    if (consumer != null) {
      consumer.unregister();
    }
  }

  private void onStatus(JsonObject json) {
    EngineStatus s = record(json);
    if (s != null && !reforming && !stopped && broken()) {
      reform(s);
    }
  }

  /** A member of the current world is down (a restart in the new world is not). */
  private boolean broken() {
    return latest.values().stream().anyMatch(s -> s.world() != null
        && s.world().epoch() == world.epoch()
        && (s.state() == EngineState.UNHEALTHY || s.state() == EngineState.FAILED));
  }

  private void reform(EngineStatus cause) {
    reforming = true;
    int n = ++reforms;
    long began = System.nanoTime();
    String tag = "world re-form " + n + ": ";
    LOG.info("{}engine {} is down ({}); it cannot rejoin a fixed world, so the others keep"
        + " serving without KV transfers (decode engines prefill alone)", tag, cause.id(),
        cause.detail());
    world.reform(vertx, config).compose(next -> {
      LOG.info("{}new world: epoch {}, {} PEs, uid {}...", tag, next.epoch(), next.init().npes(),
          uidHead(next));
      List<EndpointConfig> bridges = config.endpoints().stream()
          .filter(e -> e.role().canDecode() && state(e.id()) == EngineState.READY).toList();
      List<EndpointConfig> first = config.endpoints().stream()
          .filter(e -> !bridges.contains(e)).toList();
      int firstPes = first.stream().mapToInt(EndpointConfig::numGpus).sum();
      LOG.info("{}restarting {} with the new uid{}", tag, names(first), bridges.isEmpty() ? ""
          : "; meanwhile requests go to " + names(bridges));
      return rejoin(first, next)
          .compose(v -> waitFor(() -> next.joinedPes() < 0 || next.joinedPes() >= firstPes,
              config.get(STARTUP_TIMEOUT).toMillis(), names(first) + " joining the new world"))
          .compose(v -> {
            if (bridges.isEmpty()) {
              return Future.succeededFuture();
            }
            LOG.info("{}{} joined; now {}: out of rotation, finishing requests (at most {} ms),"
                + " then a restart with the new uid", tag, names(first), names(bridges),
                config.get(REFORM_DRAIN).toMillis());
            return rejoin(bridges, next);
          })
          .compose(v -> waitFor(() -> whole(next.epoch()), config.get(STARTUP_TIMEOUT)
              .plus(config.get(REFORM_DRAIN)).toMillis(), "every engine READY in the new world"))
          .map(v -> next);
    }).onComplete(ar -> {
      reforming = false;
      if (ar.succeeded()) {
        failuresInARow = 0;
        FleetWorld old = world;
        world = ar.result();
        adopt.accept(world);
        LOG.info("{}the world is whole again (epoch {}, {} PEs) after {} s; disaggregation"
            + " resumes", tag, world.epoch(), world.init().npes(), String.format(Locale.ROOT,
            "%.1f", (System.nanoTime() - began) / 1e9));
        vertx.executeBlocking(() -> {
          old.close();
          return null;
        });
      } else {
        failuresInARow++;
        LOG.error("{}failed: {}", tag, ar.cause().getMessage());
      }
      if (!stopped && broken() && failuresInARow <= config.get(RESTART_LIMIT)) {
        vertx.setTimer(POLL_MS, t -> {
          if (!reforming && !stopped && broken()) {
            reform(latest.values().stream().filter(s -> s.state() != EngineState.READY)
                .findFirst().orElse(cause));
          }
        });
      }
    });
  }

  /** Tells each engine to restart in {@code next}; READY ones may finish their requests first. */
  private Future<Void> rejoin(List<EndpointConfig> engines, FleetWorld next) {
    List<Future<?>> sent = new ArrayList<>();
    for (EndpointConfig e : engines) {
      long drain = state(e.id()) == EngineState.READY ? config.get(REFORM_DRAIN).toMillis() : 0;
      WorldRejoin order = new WorldRejoin(next.init().uid(), next.init().npes(), next.epoch(), drain);
      sent.add(vertx.eventBus().request(config.addresses().engineControl(e.id()), order.toJson(),
          new DeliveryOptions().setSendTimeout(10_000)));
    }
    return Future.all(sent).mapEmpty();
  }

  private boolean whole(int epoch) {
    return config.endpoints().stream().allMatch(e -> {
      EngineStatus s = latest.get(e.id());
      return s != null && s.state() == EngineState.READY && s.world() != null
          && s.world().epoch() == epoch;
    });
  }

  private EngineState state(int id) {
    EngineStatus s = latest.get(id);
    return s == null ? null : s.state();
  }

  /** Polls {@code done} (cheap, on this context) until true, or fails after {@code timeoutMs}. */
  private Future<Void> waitFor(BooleanSupplier done, long timeoutMs, String what) {
    Promise<Void> p = Promise.promise();
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    poll(done, deadline, what, p);
    return p.future();
  }

  private void poll(BooleanSupplier done, long deadline, String what, Promise<Void> p) {
    if (stopped) {
      p.tryFail("the fleet is stopping");
    } else if (done.getAsBoolean()) {
      p.tryComplete();
    } else if (System.nanoTime() > deadline) {
      p.tryFail("timed out waiting for " + what);
    } else {
      vertx.setTimer(POLL_MS, t -> poll(done, deadline, what, p));
    }
  }

  private static String names(List<EndpointConfig> engines) {
    return engines.stream().map(e -> "engine " + e.id()).collect(Collectors.joining(", "));
  }

  private static String uidHead(FleetWorld w) {
    int[] uid = w.init().uid();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < Math.min(6, uid.length); i++) {
      s.append(i == 0 ? "" : ",").append(uid[i]);
    }
    return "[" + s + "]";
  }
}
