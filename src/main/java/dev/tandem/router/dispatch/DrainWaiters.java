package dev.tandem.router.dispatch;

import io.vertx.core.Handler;
import java.util.ArrayList;
import java.util.List;

/**
 * Those waiting for one output's drain (a request's choices resumed side by side, a list's
 * prompts): the first to wait sets the output's one drain handler, and the drain wakes them all.
 * Used on the request's event loop only.
 */
public final class DrainWaiters {

  private final List<Handler<Void>> waiting = new ArrayList<>();

  /** Calls {@code handler} at {@code output}'s next drain. */
  public void add(ClientOutput output, Handler<Void> handler) {
    waiting.add(handler);
    if (waiting.size() == 1) {
      output.drainHandler(v -> {
        List<Handler<Void>> woken = new ArrayList<>(waiting);
        waiting.clear();
        woken.forEach(h -> h.handle(null));
      });
    }
  }
}
