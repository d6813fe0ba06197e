package dev.tandem.router.policy;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Chooses engines for one request attempt: a whole-request engine (round-robin mode), a decode
 * engine D and a prefill engine P (disaggregated mode). Only READY engines of a fitting role are
 * candidates, minus those excluded (engines that already failed this request, or D itself when
 * choosing P). Each role rotates its ties independently.
 */
public final class RoutePolicy {

  private final LeastLoadedPolicy whole = new LeastLoadedPolicy();
  private final LeastLoadedPolicy decode = new LeastLoadedPolicy();
  private final LeastLoadedPolicy prefill = new LeastLoadedPolicy();

  /** Any READY engine, whatever its role: MLC's round-robin mode uses every endpoint. */
  public Optional<EngineSnapshot> pickWhole(List<EngineSnapshot> engines, Set<Integer> excluded) {
    return whole.pick(engines.stream()
        .filter(e -> e.ready() && !excluded.contains(e.id())).toList());
  }

  /** A READY engine that can decode (role DECODE or BOTH). */
  public Optional<EngineSnapshot> pickDecode(List<EngineSnapshot> engines, Set<Integer> excluded) {
    return decode.pick(engines.stream()
        .filter(e -> e.ready() && e.role().canDecode() && !excluded.contains(e.id())).toList());
  }

  /** A READY engine that can prefill (role PREFILL or BOTH); pass D's id in {@code excluded}. */
  public Optional<EngineSnapshot> pickPrefill(List<EngineSnapshot> engines, Set<Integer> excluded) {
    return prefill.pick(engines.stream()
        .filter(e -> e.ready() && e.role().canPrefill() && !excluded.contains(e.id())).toList());
  }
}
