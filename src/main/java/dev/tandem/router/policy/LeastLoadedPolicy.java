package dev.tandem.router.policy;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * Least-loaded choice with ties rotated: MLC's "round-robin" mode, made fair. Among the
 * candidates with the lowest {@link EngineSnapshot#score()} (engines under KV pressure lose ties),
 * the one with the smallest id after the previously chosen id wins, wrapping around; so equal
 * engines take turns instead of the lowest index taking every tie as in MLC.
 *
 * <p>Pure logic, no I/O; one instance per role keeps its own rotation. Not thread-safe:
 * {@link RoutePolicy} holds its lock.
 */
public final class LeastLoadedPolicy {

  private static final Comparator<EngineSnapshot> BY_LOAD = Comparator
      .comparingLong(EngineSnapshot::score)
      .thenComparing(EngineSnapshot::kvPressure);

  private int lastChosenId = -1;

  /** Picks among {@code candidates} (already filtered for readiness and role); empty if none. */
  public Optional<EngineSnapshot> pick(Collection<EngineSnapshot> candidates) {
    EngineSnapshot best = null;
    for (EngineSnapshot c : candidates) {
      if (best == null) {
        best = c;
        continue;
      }
      int cmp = BY_LOAD.compare(c, best);
      if (cmp < 0 || (cmp == 0 && rotatesBefore(c.id(), best.id()))) {
        best = c;
      }
    }
    if (best != null) {
      lastChosenId = best.id();
    }
    return Optional.ofNullable(best);
  }

  /** True when {@code a} comes before {@code b} in the rotation that starts after the last chosen id. */
  private boolean rotatesBefore(int a, int b) {
    boolean aAfter = a > lastChosenId;
    boolean bAfter = b > lastChosenId;
    if (aAfter != bAfter) {
      return aAfter;
    }
    return a < b;
  }
}
