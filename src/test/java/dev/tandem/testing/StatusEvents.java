package dev.tandem.testing;

import dev.tandem.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Every engine status event published on {@link Addresses#engineStatus()}, in order, for tests
 * that follow engines through their states: {@link #next()} answers the events one by one,
 * {@link #next(String)} skips to the next one in a given state.
 */
public final class StatusEvents {
  private final Vertx vertx;
  private final Duration limit;
  private final List<JsonObject> events = new ArrayList<>();
  private int read;
  private Predicate<JsonObject> wanted;
  private Promise<JsonObject> waiting;

  private StatusEvents(Vertx vertx, Duration limit) {
    this.vertx = vertx;
    this.limit = limit;
  }

  /** Starts listening; a {@link #next} that waits longer than {@code limit} fails. */
  public static Future<StatusEvents> watch(Vertx vertx, Duration limit) {
    StatusEvents watcher = new StatusEvents(vertx, limit);
    return vertx.eventBus().<JsonObject>consumer(Addresses.DEFAULT.engineStatus(), m -> watcher.add(m.body()))
        .completion().map(v -> watcher);
  }

  /** The next event not yet answered. */
  public Future<JsonObject> next() {
    return next(e -> true, "any status event");
  }

  /** The next event in {@code state}; the events before it are passed over. */
  public Future<JsonObject> next(String state) {
    return next(e -> state.equals(e.getString("state")), "state " + state);
  }

  /** The next {@code n} events not yet answered, in order. */
  public Future<List<JsonObject>> next(int n) {
    List<JsonObject> got = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (int i = 0; i < n; i++) {
      chain = chain.compose(v -> next().map(e -> {
        got.add(e);
        return null;
      }));
    }
    return chain.map(v -> got);
  }

  /** The state of every event so far, in order. */
  public synchronized List<String> states() {
    return events.stream().map(e -> e.getString("state")).toList();
  }

  private synchronized Future<JsonObject> next(Predicate<JsonObject> match, String what) {
    if (waiting != null) {
      throw new IllegalStateException("one next() at a time");
    }
    Promise<JsonObject> promise = Promise.promise();
    wanted = match;
    waiting = promise;
    deliver();
    long timer = vertx.setTimer(limit.toMillis(), t -> timedOut(promise, what));
    return promise.future().onComplete(ar -> vertx.cancelTimer(timer));
  }

  private synchronized void add(JsonObject event) {
    events.add(event);
    deliver();
  }

  private void deliver() {
    while (waiting != null && read < events.size()) {
      JsonObject event = events.get(read++);
      if (wanted.test(event)) {
        Promise<JsonObject> promise = waiting;
        waiting = null;
        promise.complete(event);
      }
    }
  }

  private synchronized void timedOut(Promise<JsonObject> promise, String what) {
    if (waiting == promise) {
      waiting = null;
      promise.fail(new AssertionError("no " + what + " within " + limit.toSeconds()
          + " s; states so far " + states()));
    }
  }
}
