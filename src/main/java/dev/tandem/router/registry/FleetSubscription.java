package dev.tandem.router.registry;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LateMessages;
import dev.tandem.bus.LoadReport;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the registry from the fleet: subscribes to {@link Addresses#engineStatus()} and
 * {@link Addresses#engineLoad()} first, then asks {@link Addresses#fleetQuery()} once for the
 * engines that were already up (events win over that snapshot, see
 * {@link EngineRegistry#applySnapshot}). No state is shared with the fleet's verticles other than
 * these JSON messages, so it works on a clustered bus too; the router never polls engines itself.
 */
public final class FleetSubscription {

  private static final Logger LOG = LoggerFactory.getLogger(FleetSubscription.class);

  private final Vertx vertx;
  private final EngineRegistry registry;
  private final Addresses bus;
  private MessageConsumer<Object> consumer;
  private MessageConsumer<Object> loads;
  private boolean malformedLoadSeen;

  /** @param bus the addresses of the fleet this router serves */
  public FleetSubscription(Vertx vertx, EngineRegistry registry, Addresses bus) {
    this.vertx = vertx;
    this.registry = registry;
    this.bus = bus;
  }

  /** Completes when subscribed; the snapshot query runs on (a missing supervisor is not an error). */
  public Future<Void> start(long queryTimeoutMs) {
    // broadcasts that reach a stopping router mean nothing to it
    consumer = LateMessages.dropQuietly(vertx.eventBus().consumer(bus.engineStatus(), this::onStatus));
    loads = LateMessages.dropQuietly(vertx.eventBus().consumer(bus.engineLoad(), this::onLoad));
    return Future.all(consumer.completion(), loads.completion())
        .<Void>mapEmpty().onSuccess(v -> query(queryTimeoutMs));
  }

  public Future<Void> stop() {
    return Future.join(consumer == null ? Future.succeededFuture() : consumer.unregister(),
        loads == null ? Future.succeededFuture() : loads.unregister()).mapEmpty();
  }

  private void onStatus(Message<Object> msg) {
    try {
      registry.apply(EngineStatus.fromJson(asJsonObject(msg.body())));
    } catch (RuntimeException e) {
      LOG.warn("ignoring malformed engine status {}: {}", msg.body(), reason(e));
    }
  }

  private void onLoad(Message<Object> msg) {
    try {
      registry.applyLoad(LoadReport.fromJson(asJsonObject(msg.body())));
    } catch (RuntimeException e) {
      if (!malformedLoadSeen) { // once: a broken publisher would repeat it every period
        malformedLoadSeen = true;
        LOG.warn("ignoring malformed load reports, e.g. {}: {}", msg.body(), reason(e));
      }
    }
  }

  private void query(long timeoutMs) {
    vertx.eventBus().request(bus.fleetQuery(), new JsonObject(),
            new DeliveryOptions().setSendTimeout(timeoutMs))
        .onSuccess(reply -> {
          try {
            List<EngineStatus> statuses = parseSnapshot(reply.body());
            registry.applySnapshot(statuses);
            LOG.debug("fleet snapshot: {} engines", statuses.size());
          } catch (RuntimeException e) {
            LOG.warn("ignoring malformed fleet snapshot {}: {}", reply.body(), reason(e));
          }
        })
        .onFailure(e -> LOG.info("no fleet snapshot ({}); engines join as their status events arrive",
            e.getMessage()));
  }

  /** Accepts a JSON array of statuses or an object holding one under {@code engines}. */
  static List<EngineStatus> parseSnapshot(Object body) {
    JsonArray array;
    if (body instanceof JsonArray a) {
      array = a;
    } else {
      JsonObject obj = asJsonObject(body);
      array = obj.getJsonArray("engines");
      if (array == null) {
        throw new IllegalArgumentException("no 'engines' array");
      }
    }
    List<EngineStatus> out = new ArrayList<>();
    for (Object o : array) {
      out.add(EngineStatus.fromJson(asJsonObject(o)));
    }
    return out;
  }

  /** What was wrong with a message: our own readers' messages as they are, else the exception. */
  private static String reason(RuntimeException e) {
    return e instanceof IllegalArgumentException && e.getMessage() != null ? e.getMessage()
        : e.toString();
  }

  private static JsonObject asJsonObject(Object body) {
    if (body instanceof JsonObject o) {
      return o;
    }
    if (body instanceof String s) {
      return new JsonObject(s);
    }
    throw new IllegalArgumentException("expected a JSON object, got "
        + (body == null ? "null" : body.getClass().getSimpleName()));
  }
}
