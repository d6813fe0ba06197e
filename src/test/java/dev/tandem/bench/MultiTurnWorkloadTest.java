package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Conversations: each turn's prompt extends the previous one; everything is seeded. */
class MultiTurnWorkloadTest {

  private static WorkloadGenerator generator(int turns, int limit, SharedPrefix prefix) {
    WorkloadClass chat = new WorkloadClass("chat", LengthDistribution.parse("lognormal:60,0.5"),
        LengthDistribution.parse("lognormal:120,0.5"), 1);
    return new WorkloadGenerator(new WorkloadSpec(List.of(chat), PromptKind.IDS, 1000, 3, prefix, 7,
        new MultiTurn(turns, 0, limit)));
  }

  @Test
  void eachTurnIsThePreviousPromptPlusReplyPlusANewMessage() {
    WorkloadGenerator g = generator(4, 100_000, new SharedPrefix(2, 32));
    for (long c = 0; c < 5; c++) {
      assertEquals(4, g.turnsOf(c));
      PlannedRequest prev = null;
      for (int t = 0; t < 4; t++) {
        PlannedRequest r = g.request(c * 4 + t);
        assertEquals(r.promptUnits(), r.promptIds().length);
        if (prev != null) {
          assertTrue(r.promptIds().length > prev.promptIds().length + prev.maxTokens());
          assertArrayEquals(prev.promptIds(), Arrays.copyOf(r.promptIds(), prev.promptIds().length),
              "turn " + t + " of conversation " + c + " starts with turn " + (t - 1));
          assertEquals(prev.prefixIndex(), r.prefixIndex());
        }
        prev = r;
      }
    }
    // two conversations share at most the system prefix
    int[] a = g.request(0).promptIds();
    int[] b = g.request(4).promptIds();
    int common = 0;
    while (common < Math.min(a.length, b.length) && a[common] == b[common]) {
      common++;
    }
    assertTrue(common <= 32 + 1, "shared " + common);
  }

  @Test
  void theSameSeedAndIndexGiveTheSameRequest() {
    assertEquals(generator(3, 100_000, null).request(17), generator(3, 100_000, null).request(17));
  }

  @Test
  void aConversationEndsBeforeATurnThatWouldNotFit() {
    WorkloadGenerator g = generator(50, 1000, null);
    for (long c = 0; c < 10; c++) {
      int turns = g.turnsOf(c);
      assertTrue(turns >= 1 && turns < 50);
      if (turns > 1) {
        PlannedRequest last = g.request(c * 50 + turns - 1);
        assertTrue(last.promptUnits() + last.maxTokens() <= 1000);
      }
    }
  }

  @Test
  void traceFitsMatchTheirPublishedMoments() {
    TraceLengths.Fit lmsys = TraceLengths.get("lmsys-chat-1m");
    assertEquals(69.5, lmsys.prompt().mean());
    assertEquals(214.5, lmsys.output().mean());
    assertEquals(1.29, ((LengthDistribution.LogNormal) lmsys.prompt()).sigma());
    assertEquals(0.87, ((LengthDistribution.LogNormal) lmsys.output()).sigma());
    // sampled mean close to the published one
    java.util.SplittableRandom r = new java.util.SplittableRandom(1);
    double sum = 0;
    for (int i = 0; i < 200_000; i++) {
      sum += lmsys.output().sample(r);
    }
    assertEquals(214.5, sum / 200_000, 5);
    assertThrows(IllegalArgumentException.class, () -> TraceLengths.get("sharegpt-v9"));
  }
}
