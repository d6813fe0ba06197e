package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoutePolicyTest {

  private final List<EngineSnapshot> fleet = List.of(
      new EngineSnapshot(0, EngineRole.PREFILL, true, 0, null),
      new EngineSnapshot(1, EngineRole.DECODE, true, 2, null),
      new EngineSnapshot(2, EngineRole.DECODE, true, 1, null),
      new EngineSnapshot(3, EngineRole.DECODE, false, 0, null),
      new EngineSnapshot(4, EngineRole.BOTH, true, 5, null));

  @Test
  void kindsReadTheirOwnWireNames() {
    for (RoutePolicy.Kind k : RoutePolicy.Kind.values()) {
      assertEquals(k, RoutePolicy.Kind.parse(k.wireName()));
    }
    assertEquals("least-loaded", RoutePolicy.Kind.LEAST_LOADED.wireName());
    assertEquals("cache-aware", RoutePolicy.Kind.CACHE_AWARE.wireName());
  }

  @Test
  void decodeChoiceSkipsPrefillOnlyAndUnreadyEngines() {
    RoutePolicy p = new RoutePolicy();
    assertEquals(2, p.pickDecode(fleet, Set.of()).orElseThrow().id());
    assertEquals(1, p.pickDecode(fleet, Set.of(2)).orElseThrow().id());
    assertEquals(4, p.pickDecode(fleet, Set.of(1, 2)).orElseThrow().id());
    assertTrue(p.pickDecode(fleet, Set.of(1, 2, 4)).isEmpty());
  }

  @Test
  void prefillChoiceAmongSeveralPrefillCapableEngines() {
    RoutePolicy p = new RoutePolicy();
    assertEquals(0, p.pickPrefill(fleet, Set.of()).orElseThrow().id());
    assertEquals(4, p.pickPrefill(fleet, Set.of(0)).orElseThrow().id());
    // D itself is excluded by the caller: a BOTH engine never sends to itself
    assertTrue(p.pickPrefill(fleet, Set.of(0, 4)).isEmpty());
  }

  @Test
  void wholeRequestChoiceUsesEveryReadyRole() {
    RoutePolicy p = new RoutePolicy();
    assertEquals(0, p.pickWhole(fleet, Set.of()).orElseThrow().id());
    assertEquals(2, p.pickWhole(fleet, Set.of(0)).orElseThrow().id());
  }

  @Test
  void rolesRotateIndependently() {
    RoutePolicy p = new RoutePolicy();
    List<EngineSnapshot> idle = List.of(
        new EngineSnapshot(0, EngineRole.BOTH, true, 0, null),
        new EngineSnapshot(1, EngineRole.BOTH, true, 0, null));
    assertEquals(0, p.pickDecode(idle, Set.of()).orElseThrow().id());
    assertEquals(0, p.pickPrefill(idle, Set.of()).orElseThrow().id());
    assertEquals(1, p.pickDecode(idle, Set.of()).orElseThrow().id());
  }
}
