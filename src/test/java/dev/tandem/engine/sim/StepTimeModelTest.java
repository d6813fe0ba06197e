package dev.tandem.engine.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.engine.model.ForwardChunk;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The roofline on the H100 + Llama-3-8B profile, against hand arithmetic. */
class StepTimeModelTest {

  private static StepTimeModel model;
  private static SimProfile profile;

  @BeforeAll
  static void load() throws IOException {
    profile = SimProfile.load("h100-llama3-8b");
    model = new StepTimeModel(profile);
  }

  private static ForwardChunk chunk(int start, int n, boolean logits) {
    return new ForwardChunk(new int[n], start, new int[start + n], logits);
  }

  @Test
  void decodeAtBatchOneReadsTheWeightsOnce() {
    // memory-bound: 8.03 GB of FP8 weights (+ a 1,000-token context of 64 KB) at 0.8 x 3.35 TB/s
    double weights = profile.model().totalParams() * 1.0;
    double kv = 1001 * 65536.0;
    double expected = (weights + kv) / (3350e9 * 0.8) + 1.5e-3;
    assertEquals(expected * 1e9, model.stepNanos(List.of(chunk(1000, 1, true))), 1e4);
  }

  @Test
  void aLongPrefillIsComputeBound() {
    long t = model.stepNanos(List.of(chunk(0, 8192, true)));
    double flops = 2.0 * profile.model().blockParams() * 8192 + 2.0 * profile.model().embeddingParams()
        + 4.0 * 32 * 32 * 128 * (8192 * 8193 / 2.0);
    assertEquals((flops / (1979e12 * 0.45) + 1.5e-3) * 1e9, t, 1e4);
  }

  @Test
  void batchingDecodeIsNearlyFreeUntilComputeBinds() {
    long one = model.stepNanos(List.of(chunk(500, 1, true)));
    List<ForwardChunk> many = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      many.add(chunk(500, 1, true));
    }
    long sixtyFour = model.stepNanos(many);
    assertTrue(sixtyFour < 1.5 * one, one + " vs " + sixtyFour);
  }

  @Test
  void kvTransferIsPacedByTheLink() {
    // 2,000 tokens x 64 KB over 450 GB/s
    assertEquals(2000 * 65536.0 / 450e9 * 1e9, model.transferNanos(2000), 1);
  }

  @Test
  void kvCapacityIsTheMemoryLeftByTheWeights() {
    double gib = 1L << 30;
    double free = 80 * gib * 0.9 - profile.model().totalParams() - 0.05 * 80 * gib;
    assertEquals((long) (free / 65536), model.kvCapacityTokens(0.9));
  }
}
