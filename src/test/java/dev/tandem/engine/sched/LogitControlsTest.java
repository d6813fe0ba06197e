package dev.tandem.engine.sched;

import static dev.tandem.engine.sched.EngineTestSupport.engine;
import static dev.tandem.engine.sched.EngineTestSupport.options;
import static dev.tandem.engine.sched.EngineTestSupport.prompt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.api.ApiError;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Penalties, logit bias and top-k in the builtin engine, as the OpenAI docs describe them:
 * {@code mu[j] - c[j] * frequency_penalty - (c[j] > 0) * presence_penalty + logit_bias[j]},
 * c[j] the count of token j in the output so far; top-k samples among the k largest only.
 */
class LogitControlsTest {

  static GenerationRequest request(String id, int[] prompt, int maxTokens, double temperature,
      long seed, LogitControls controls) {
    return new GenerationRequest(id, prompt, 1, new SamplingParams(temperature, 1, seed, maxTokens,
        null, List.of(), true, controls));
  }

  static int[] run(Engine e, GenerationRequest r) throws Exception {
    Collector c = new Collector();
    e.submit(r, c);
    return c.await().tokens(0);
  }

  /** Greedy decoding of the stand-in model with OpenAI's penalty formula, computed here. */
  static int[] penalizedReference(int[] prompt, int maxTokens, float frequency, float presence) {
    int state = 17;
    for (int pos = 0; pos < prompt.length; pos++) {
      state = ChainedHashModel.next(state, prompt[pos], pos);
    }
    Map<Integer, Integer> counts = new HashMap<>();
    int[] out = new int[maxTokens];
    for (int i = 0; i < maxTokens; i++) {
      float[] mu = ChainedHashModel.logits(state);
      for (Map.Entry<Integer, Integer> c : counts.entrySet()) {
        mu[c.getKey()] -= c.getValue() * frequency + (c.getValue() > 0 ? presence : 0);
      }
      out[i] = Sampler.argmax(mu);
      counts.merge(out[i], 1, Integer::sum);
      state = ChainedHashModel.next(state, out[i], prompt.length + i);
    }
    return out;
  }

  @Test
  void aLogitBiasOf100MakesThatTokenTheAnswerGreedyOrSampled() throws Exception {
    LogitControls bias = new LogitControls(0, 0, new int[] {120}, new float[] {100}, 0);
    try (Engine e = engine(options(4, 64, 64, false))) {
      int[] plain = run(e, request("a", prompt(1, 9), 6, 0, 0, LogitControls.NONE));
      int[] greedy = run(e, request("b", prompt(1, 9), 6, 0, 0, bias));
      int[] sampled = run(e, request("c", prompt(1, 9), 6, 1.0, 5, bias));
      assertEquals(6, Arrays.stream(plain).filter(t -> t != 120).count(), "120 is not the answer");
      assertArrayEquals(new int[] {120, 120, 120, 120, 120, 120}, greedy);
      assertArrayEquals(greedy, sampled);
      LogitControls ban = new LogitControls(0, 0, new int[] {plain[0]}, new float[] {-100}, 0);
      int first = run(e, request("d", prompt(1, 9), 1, 0, 0, ban))[0];
      assertEquals(false, first == plain[0], "a bias of -100 bans the token");
    }
  }

  @Test
  void frequencyAndPresencePenaltiesFollowTheOpenAiFormula() throws Exception {
    try (Engine e = engine(options(4, 64, 64, false))) {
      int[] p = prompt(3, 11);
      int[] plain = run(e, request("p", p, 40, 0, 0, LogitControls.NONE));
      assertArrayEquals(ChainedHashModel.reference(p, 40), plain);
      for (float[] fp : new float[][] {{2, 0}, {0, 2}, {1.5f, 0.5f}, {-2, 0}}) {
        int[] got = run(e, request("f" + fp[0] + fp[1], p, 40, 0, 0,
            new LogitControls(fp[0], fp[1], new int[0], new float[0], 0)));
        assertArrayEquals(penalizedReference(p, 40, fp[0], fp[1]), got, Arrays.toString(fp));
      }
      int[] discouraged = penalizedReference(p, 40, 2, 2);
      assertEquals(true, distinct(discouraged) >= distinct(plain),
          "positive penalties make repeats rarer: " + distinct(discouraged) + " vs " + distinct(plain));
    }
  }

  @Test
  void topKOfOneSamplesTheGreedyTokenAndControlsKeepBatchInvariance() throws Exception {
    LogitControls topOne = new LogitControls(0, 0, new int[0], new float[0], 1);
    LogitControls mixed = new LogitControls(0.7f, 0.3f, new int[] {40}, new float[] {3}, 20);
    try (Engine e = engine(options(8, 256, 7, false))) {
      int[] p = prompt(4, 13);
      assertArrayEquals(ChainedHashModel.reference(p, 12),
          run(e, request("k", p, 12, 1.3, 99, topOne)));
      int[] alone = run(e, request("alone", p, 24, 0.9, 1234, mixed));
      List<Collector> crowd = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        Collector c = new Collector();
        e.submit(request("crowd" + i, i == 3 ? p : prompt(10 + i, 5 + 3 * i), 24, 0.9,
            i == 3 ? 1234 : i, mixed), c);
        crowd.add(c);
      }
      assertArrayEquals(alone, crowd.get(3).await().tokens(0), "same tokens in a batch of six");
    }
  }

  @Test
  void biasOutsideTheVocabularyIs400AndNothingAppliesWhenNothingIsAsked() {
    try (Engine e = engine(options(4, 64, 64, false))) {
      ApiError error = assertThrows(ApiError.class, () -> e.submit(request("v", prompt(1, 3), 2, 0, 0,
          new LogitControls(0, 0, new int[] {ChainedHashModel.VOCAB}, new float[] {1}, 0)),
          new Collector()));
      assertEquals("logit_bias", error.param());
    }
    float[] row = {1, 2, 3};
    assertSame(row, LogitControls.NONE.apply(row, new int[0], 0, 0, false));
    assertSame(row, new LogitControls(0, 0, new int[0], new float[0], 5).apply(row, new int[0], 0, 0,
        true), "top-k cannot change an argmax");
  }

  static long distinct(int[] tokens) {
    return Arrays.stream(tokens).distinct().count();
  }
}
