package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.bus.EngineRole;
import java.util.List;
import org.junit.jupiter.api.Test;

class CacheAwarePolicyTest {

  private static EngineSnapshot engine(int id, int load) {
    return new EngineSnapshot(id, EngineRole.BOTH, true, load, null);
  }

  private final CacheAwarePolicy policy = new CacheAwarePolicy(new CacheAwarePolicy.Options(0.5, 4, 1.5));

  @Test
  void aConversationStaysWhereItsPrefixIs() {
    int[] turn1 = PrefixTreeTest.tokens(1, 200);
    List<EngineSnapshot> idle = List.of(engine(0, 0), engine(1, 0), engine(2, 0));
    CacheAwarePolicy.Choice first = policy.pick(idle, turn1).orElseThrow();
    assertEquals(CacheAwarePolicy.Reason.NO_PREFIX, first.reason());
    int[] turn2 = PrefixTreeTest.concat(turn1, PrefixTreeTest.tokens(2, 50));
    // the first engine is now a little busier, but within the balance thresholds
    List<EngineSnapshot> later = List.of(engine(0, first.engine().id() == 0 ? 2 : 0),
        engine(1, first.engine().id() == 1 ? 2 : 0), engine(2, first.engine().id() == 2 ? 2 : 0));
    CacheAwarePolicy.Choice second = policy.pick(later, turn2).orElseThrow();
    assertEquals(first.engine().id(), second.engine().id());
    assertEquals(CacheAwarePolicy.Reason.PREFIX, second.reason());
    assertEquals(192, second.predictedMatch());
  }

  @Test
  void imbalanceBeyondBothThresholdsWinsOverThePrefix() {
    int[] p = PrefixTreeTest.tokens(3, 200);
    int home = policy.pick(List.of(engine(0, 0), engine(1, 0)), p).orElseThrow().engine().id();
    int other = 1 - home;
    // 10 vs 1: max - min 9 > 4 and 10 > 1.5 x 1
    List<EngineSnapshot> skewed = List.of(engine(home, 10), engine(other, 1));
    CacheAwarePolicy.Choice c = policy.pick(skewed, p).orElseThrow();
    assertEquals(other, c.engine().id());
    assertEquals(CacheAwarePolicy.Reason.BALANCE, c.reason());
    // 6 vs 3: max - min 3 is within 4, so the prefix wins even on the busier engine
    int[] q = PrefixTreeTest.tokens(9, 200);
    policy.pick(List.of(engine(home, 0)), q);
    List<EngineSnapshot> mild = List.of(engine(home, 6), engine(other, 3));
    assertEquals(home, policy.pick(mild, q).orElseThrow().engine().id());
  }

  @Test
  void aShortMatchBelowTheThresholdGoesToTheLeastLoaded() {
    int[] system = PrefixTreeTest.tokens(4, 32);
    int[] a = PrefixTreeTest.concat(system, PrefixTreeTest.tokens(5, 200));
    policy.pick(List.of(engine(0, 0), engine(1, 5)), a);
    int[] b = PrefixTreeTest.concat(system, PrefixTreeTest.tokens(6, 200)); // 32 of 232 shared
    CacheAwarePolicy.Choice c = policy.pick(List.of(engine(0, 3), engine(1, 1)), b).orElseThrow();
    assertEquals(1, c.engine().id());
    assertEquals(CacheAwarePolicy.Reason.NO_PREFIX, c.reason());
  }

  @Test
  void anEngineReportCorrectsThePrediction() {
    int[] p = PrefixTreeTest.tokens(7, 160);
    int id = policy.pick(List.of(engine(0, 0)), p).orElseThrow().engine().id();
    assertEquals(160, policy.predictedMatch(id, p));
    policy.observed(id, PrefixTreeTest.concat(p, PrefixTreeTest.tokens(8, 16)), 48);
    assertEquals(160, policy.predictedMatch(id, p)); // re-inserted: the engine computes it now
    policy.forget(id);
    assertEquals(0, policy.predictedMatch(id, p));
  }
}
