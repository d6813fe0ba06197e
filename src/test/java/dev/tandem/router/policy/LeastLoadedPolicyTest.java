package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeastLoadedPolicyTest {

  private static EngineSnapshot engine(int id, int inFlight) {
    return new EngineSnapshot(id, EngineRole.DECODE, true, inFlight, null);
  }

  private static EngineSnapshot engine(int id, int inFlight, LoadGauges g) {
    return new EngineSnapshot(id, EngineRole.DECODE, true, inFlight, g);
  }

  @Test
  void emptyCandidatesGiveNothing() {
    assertTrue(new LeastLoadedPolicy().pick(List.of()).isEmpty());
  }

  @Test
  void picksTheLeastInFlight() {
    LeastLoadedPolicy p = new LeastLoadedPolicy();
    assertEquals(2, p.pick(List.of(engine(0, 3), engine(1, 2), engine(2, 1))).orElseThrow().id());
  }

  @Test
  void tiesRotateInsteadOfAlwaysTheLowestIndex() {
    LeastLoadedPolicy p = new LeastLoadedPolicy();
    List<EngineSnapshot> all = List.of(engine(1, 0), engine(2, 0), engine(3, 0));
    List<Integer> picks = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      picks.add(p.pick(all).orElseThrow().id());
    }
    assertEquals(List.of(1, 2, 3, 1, 2, 3), picks);
  }

  @Test
  void rotationSurvivesAChangingTieSet() {
    LeastLoadedPolicy p = new LeastLoadedPolicy();
    assertEquals(2, p.pick(List.of(engine(0, 1), engine(2, 0), engine(5, 0))).orElseThrow().id());
    // engine 2 is now busier; 5 and 7 tie: next after 2 is 5
    assertEquals(5, p.pick(List.of(engine(2, 1), engine(5, 0), engine(7, 0))).orElseThrow().id());
    assertEquals(7, p.pick(List.of(engine(2, 1), engine(5, 0), engine(7, 0))).orElseThrow().id());
    // wraps around to the smallest id
    assertEquals(5, p.pick(List.of(engine(2, 1), engine(5, 0), engine(7, 0))).orElseThrow().id());
  }

  @Test
  void spreadsEvenlyWhenCountersFollowPicks() {
    LeastLoadedPolicy p = new LeastLoadedPolicy();
    Map<Integer, Integer> inFlight = new HashMap<>(Map.of(1, 0, 2, 0));
    for (int i = 0; i < 100; i++) {
      List<EngineSnapshot> snap = List.of(engine(1, inFlight.get(1)), engine(2, inFlight.get(2)));
      int id = p.pick(snap).orElseThrow().id();
      inFlight.merge(id, 1, Integer::sum);
    }
    assertEquals(50, inFlight.get(1));
    assertEquals(50, inFlight.get(2));
  }

  @Test
  void engineGaugesCountWhenTheyShowMoreLoadThanTheRouterKnows() {
    LeastLoadedPolicy p = new LeastLoadedPolicy();
    // engine 0: router counts 1, engine itself runs 5 (other clients); engine 1: 2 in flight
    EngineSnapshot busyElsewhere = engine(0, 1, new LoadGauges(4, 1, 100, 100));
    assertEquals(1, p.pick(List.of(busyElsewhere, engine(1, 2))).orElseThrow().id());
    assertEquals(5, busyElsewhere.score());
  }

  @Test
  void ourOwnRequestsAreNotCountedTwice() {
    // 3 in flight by the router, the engine reports those same 3 as running: score 3, not 6
    assertEquals(3, engine(0, 3, new LoadGauges(3, 0, 10, 100)).score());
    // stale-low gauges never hide the router's own count
    assertEquals(4, engine(0, 4, new LoadGauges(1, 0, 10, 100)).score());
  }

  @Test
  void kvPressureLosesTies() {
    LeastLoadedPolicy p = new LeastLoadedPolicy();
    EngineSnapshot full = engine(0, 1, new LoadGauges(1, 0, 2, 100));
    EngineSnapshot roomy = engine(1, 1, new LoadGauges(1, 0, 60, 100));
    for (int i = 0; i < 3; i++) {
      assertEquals(1, p.pick(List.of(full, roomy)).orElseThrow().id());
    }
    // but pressure does not beat a lower load
    assertEquals(0, p.pick(List.of(full, engine(1, 2, new LoadGauges(2, 0, 60, 100))))
        .orElseThrow().id());
  }
}
