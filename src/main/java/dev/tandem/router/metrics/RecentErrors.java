package dev.tandem.router.metrics;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The last {@value #SIZE} failed or refused requests (time, status, cause, message), newest first,
 * for the dashboard. Messages are the router's own error messages, which never contain a key.
 */
public final class RecentErrors {

  static final int SIZE = 50;
  private static final int MAX_MESSAGE = 300;

  private final Deque<JsonObject> errors = new ArrayDeque<>();

  public synchronized void add(int status, String cause, String message) {
    String text = message == null ? "" : message;
    errors.addFirst(new JsonObject().put("time", System.currentTimeMillis()).put("status", status)
        .put("cause", cause).put("message", text.length() > MAX_MESSAGE
            ? text.substring(0, MAX_MESSAGE) + "..." : text));
    if (errors.size() > SIZE) {
      errors.removeLast();
    }
  }

  public synchronized JsonArray toJson() {
    JsonArray out = new JsonArray();
    errors.forEach(e -> out.add(e.copy()));
    return out;
  }
}
