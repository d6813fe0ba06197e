package dev.tandem.engine.sched;

import static dev.tandem.engine.sched.EngineTestSupport.options;
import static dev.tandem.engine.sched.EngineTestSupport.prompt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.engine.model.GenerationConfig;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A sequence ends on any of config.json's and generation_config.json's eos ids, unless told to ignore eos. */
class StopTokensTest {

  private static Collector run(GenerationConfig generation, int[] p, boolean ignoreEos) throws Exception {
    try (Engine e = new Engine(new ChainedHashModel(4096), new ByteTokenizer(), options(2, 64, 512, false),
        generation)) {
      e.start();
      Collector c = new Collector();
      e.submit(new GenerationRequest("s", p, 1, new SamplingParams(0, 1, 0, 20, null, List.of(), ignoreEos)), c);
      return c.await();
    }
  }

  private static boolean contains(int[] values, int v) {
    return Arrays.stream(values).anyMatch(t -> t == v);
  }

  @Test
  void generationConfigEosIdsEndASequence() throws Exception {
    int[] p = prompt(3, 30);
    int[] all = ChainedHashModel.reference(p, 20);
    // the first token of the greedy answer that did not occur before it: the answer must stop there
    int at = 4;
    while (contains(Arrays.copyOf(all, at), all[at])) {
      at++;
    }
    int stop = all[at];
    Collector c = run(new GenerationConfig(List.of(257, stop), null, null, null), p, false);
    assertArrayEquals(Arrays.copyOf(all, at + 1), c.tokens(0));
    assertEquals(FinishReason.STOP, c.finish.get(0));

    Collector ignoring = run(new GenerationConfig(List.of(stop), null, null, null), p, true);
    assertArrayEquals(all, ignoring.tokens(0));
    assertEquals(FinishReason.LENGTH, ignoring.finish.get(0));

    Collector without = run(GenerationConfig.NONE, p, false);
    assertArrayEquals(all, without.tokens(0), "config.json's eos (257) never comes: runs to max_tokens");
  }
}
