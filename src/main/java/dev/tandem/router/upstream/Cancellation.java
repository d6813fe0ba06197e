package dev.tandem.router.upstream;

import java.util.ArrayList;
import java.util.List;

/**
 * Tells work in progress for one client request that its result is no longer wanted (the client
 * went away). Upstream calls register a hook that resets their HTTP request, which makes the
 * engine abort; hooks registered after cancellation run at once. Used on one context only.
 */
public final class Cancellation {

  /** Never cancelled: for clean-up calls that must run even when the client is gone. */
  public static final Cancellation NONE = new Cancellation();

  /** A request's calls follow one another: one hook at a time, most of the time. */
  private final List<Runnable> hooks = new ArrayList<>(2);
  private boolean cancelled;

  public boolean cancelled() {
    return cancelled;
  }

  /** Runs {@code hook} on cancellation; returns a handle that removes it once the work is done. */
  public Runnable onCancel(Runnable hook) {
    if (this == NONE) {
      return () -> {};
    }
    if (cancelled) {
      hook.run();
      return () -> {};
    }
    hooks.add(hook);
    return () -> hooks.remove(hook);
  }

  public void cancel() {
    if (this == NONE || cancelled) {
      return;
    }
    cancelled = true;
    List<Runnable> toRun = new ArrayList<>(hooks);
    hooks.clear();
    toRun.forEach(Runnable::run);
  }
}
