package dev.tandem.engine.sched;

import static dev.tandem.engine.sched.EngineTestSupport.engine;
import static dev.tandem.engine.sched.EngineTestSupport.greedy;
import static dev.tandem.engine.sched.EngineTestSupport.options;
import static dev.tandem.engine.sched.EngineTestSupport.prompt;
import static dev.tandem.engine.sched.EngineTestSupport.unstarted;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ApiError;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Continuous batching, chunked prefill, preemption and the prefix cache against a KV-chained stand-in model. */
class EngineSchedulingTest {

  @Test
  void singleRequestMatchesTheCacheFreeReference() throws Exception {
    try (Engine e = engine(options(4, 64, 512, false))) {
      int[] p = prompt(1, 37);
      Collector c = new Collector();
      e.submit(greedy("a", p, 20), c);
      c.await();
      assertArrayEquals(ChainedHashModel.reference(p, 20), c.tokens(0));
      assertEquals(FinishReason.LENGTH, c.finish.get(0));
      assertEquals(37, c.usage.prefillTokens());
      assertEquals(19, c.usage.decodeTokens());
      assertEquals(20, c.usage.completionTokens());
    }
  }

  @Test
  void concurrentRequestsAndAnyChunkingGiveTheSameTokens() throws Exception {
    for (int chunk : new int[] {1, 7, 16, 512}) {
      try (Engine e = engine(options(8, 256, chunk, false))) {
        List<Collector> cs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          Collector c = new Collector();
          e.submit(greedy("r" + i, prompt(i, 5 + i * 9), 12), c);
          cs.add(c);
        }
        for (int i = 0; i < 8; i++) {
          assertArrayEquals(ChainedHashModel.reference(prompt(i, 5 + i * 9), 12),
              cs.get(i).await().tokens(0), "chunk " + chunk + " request " + i);
        }
      }
    }
  }

  @Test
  void preemptionByRecomputeKeepsOutputsExact() throws Exception {
    // 12 pages = 192 tokens for 6 requests that each grow to 60 tokens: someone must be preempted.
    // All six are queued before the loop starts, so that none can finish before the last arrives.
    try (Engine e = unstarted(options(6, 12, 32, false))) {
      List<Collector> cs = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        Collector c = new Collector();
        e.submit(greedy("p" + i, prompt(i, 20), 40), c);
        cs.add(c);
      }
      e.start();
      for (int i = 0; i < 6; i++) {
        assertArrayEquals(ChainedHashModel.reference(prompt(i, 20), 40), cs.get(i).await().tokens(0));
      }
      assertTrue(e.counters().preemptions.get() > 0, "expected preemptions");
      awaitIdle(e);
      assertEquals(12, e.stats().kvPagesFree());
    }
  }

  @Test
  void prefixCacheServesWholePagesAndKeepsTokens() throws Exception {
    int[] shared = prompt(3, 50);
    int[] second = java.util.Arrays.copyOf(shared, 60);
    for (int i = 50; i < 60; i++) {
      second[i] = 200 + i - 50;
    }
    try (Engine e = engine(options(4, 64, 512, true))) {
      Collector a = new Collector();
      e.submit(greedy("a", shared, 5), a);
      a.await();
      Collector b = new Collector();
      e.submit(greedy("b", second, 8), b);
      b.await();
      assertEquals(48, b.usage.prefixMatchedLength());
      assertEquals(12, b.usage.prefillTokens());
      assertArrayEquals(ChainedHashModel.reference(second, 8), b.tokens(0));
    }
  }

  @Test
  void cacheIsEvictedBeforeAnyoneIsPreempted() throws Exception {
    try (Engine e = engine(options(4, 8, 512, true))) {
      for (int i = 0; i < 6; i++) {
        Collector c = new Collector();
        e.submit(greedy("c" + i, prompt(i, 40), 10), c);
        assertArrayEquals(ChainedHashModel.reference(prompt(i, 40), 10), c.await().tokens(0));
      }
      assertEquals(0, e.counters().preemptions.get());
    }
  }

  @Test
  void seededChoicesAreIndependentOfN() throws Exception {
    try (Engine e = engine(options(8, 64, 512, true))) {
      int[] p = prompt(5, 21);
      Collector many = new Collector();
      e.submit(new GenerationRequest("n3", p, 3, sampling(42)), many);
      many.await();
      for (int i = 0; i < 3; i++) {
        Collector one = new Collector();
        e.submit(new GenerationRequest("one" + i, p, 1, sampling(42 + i)), one);
        assertArrayEquals(one.await().tokens(0), many.tokens(i), "choice " + i);
      }
      assertTrue(!java.util.Arrays.equals(many.tokens(0), many.tokens(1)), "choices should differ");
    }
  }

  @Test
  void duplicateIdIsRefusedAndAbortFreesKv() throws Exception {
    try (Engine e = engine(options(4, 64, 4, false))) {
      Collector c = new Collector();
      e.submit(greedy("dup", prompt(1, 200), 3000), c);
      ApiError err = assertThrows(ApiError.class, () -> e.submit(greedy("dup", prompt(1, 5), 1), new Collector()));
      assertEquals(409, err.status());
      e.abort("dup");
      awaitIdle(e);
      assertEquals(64, e.stats().kvPagesFree());
      Collector again = new Collector();
      e.submit(greedy("dup", prompt(2, 5), 2), again);
      again.await();
    }
  }

  @Test
  void promptAndMaxTokensAreCheckedAgainstTheContext() {
    try (Engine e = engine(new EngineOptions(4, 64, 512, 100, false, java.time.Duration.ofSeconds(5)))) {
      assertEquals(400, assertThrows(ApiError.class, () -> e.checkPrompt(prompt(1, 100), null)).status());
      assertEquals(400, assertThrows(ApiError.class, () -> e.checkPrompt(prompt(1, 90), 11)).status());
      assertEquals(400, assertThrows(ApiError.class, () -> e.checkPrompt(new int[] {300}, null)).status());
      e.checkPrompt(prompt(1, 90), 10);
    }
  }

  @Test
  void maxTokensZeroFinishesAtOnce() throws Exception {
    try (Engine e = engine(options(4, 64, 512, false))) {
      Collector c = new Collector();
      e.submit(new GenerationRequest("z", prompt(1, 5), 2, SamplingParams.greedy(0)), c);
      c.await();
      assertEquals(FinishReason.LENGTH, c.finish.get(1));
      assertEquals(0, c.usage.completionTokens());
    }
  }

  static SamplingParams sampling(long seed) {
    return new SamplingParams(0.9, 0.95, seed, 15, 2, List.of(), true);
  }

  static void awaitIdle(Engine e) throws InterruptedException {
    for (int i = 0; i < 200 && (e.stats().running() > 0 || e.stats().waiting() > 0); i++) {
      Thread.sleep(10);
    }
    Thread.sleep(30);
  }
}
