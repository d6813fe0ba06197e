package dev.tandem.engine.sched;

import java.time.Duration;
import java.util.List;

/** Builders shared by the scheduler tests. */
final class EngineTestSupport {
  private EngineTestSupport() {}

  static EngineOptions options(int maxSeq, int pages, int chunk, boolean cache) {
    return new EngineOptions(maxSeq, pages, chunk, 4096, cache, Duration.ofSeconds(60));
  }

  static Engine engine(EngineOptions options) {
    Engine e = unstarted(options);
    e.start();
    return e;
  }

  /** An engine whose loop has not started: requests submitted now are all queued at its first step. */
  static Engine unstarted(EngineOptions options) {
    return new Engine(new ChainedHashModel(4096), new ByteTokenizer(), options);
  }

  static GenerationRequest greedy(String id, int[] prompt, int maxTokens) {
    return new GenerationRequest(id, prompt, 1,
        new SamplingParams(0, 1, 0, maxTokens, null, List.of(), true));
  }

  static int[] prompt(int seed, int length) {
    int[] p = new int[length];
    for (int i = 0; i < length; i++) {
      p[i] = (seed * 37 + i * 11) % 256;
    }
    return p;
  }
}
