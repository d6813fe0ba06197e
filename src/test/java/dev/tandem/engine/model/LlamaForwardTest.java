package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The forward pass against {@link ReferenceLlama}, an independent double-precision implementation. */
class LlamaForwardTest {

  /** Odd sizes on purpose: explicit head_dim (q width 60 != hidden 40), GQA 6:2, untied lm_head, dims not multiples of 4. */
  static final LlamaConfig ODD = new LlamaConfig(97, 40, 54, 2, 6, 2, 10, 500000.0, 1e-6, 64, false, 1, 2);

  @TempDir
  Path dir;

  @Test
  void logitsAndKvMatchReferenceImplementation() throws Exception {
    RandomModelWriter.write(dir, ODD, 11, SafetensorsDtype.F32);
    scaleUpWeights();
    int[] tokens = {5, 17, 96, 0, 42, 42, 7, 63, 88, 1, 30};
    ReferenceLlama.Result ref = new ReferenceLlama(dir).run(tokens);
    try (LlamaModel model = LlamaModel.load(dir, 2)) {
      assertEquals(ODD, model.config());
      ArrayKvStore kv = new ArrayKvStore(ODD, 32);
      int[] slots = IntStream.range(0, tokens.length).map(i -> 31 - 2 * i).toArray(); // scattered slots
      float[][] out = model.forward(List.of(new ForwardChunk(tokens, 0, slots, true)), kv);
      assertEquals(ODD.vocabSize(), out[0].length);
      double maxAbs = 0;
      for (double v : ref.logits()) {
        maxAbs = Math.max(maxAbs, Math.abs(v));
      }
      assertTrue(maxAbs > 0.05, "logits should not be trivially small: " + maxAbs);
      for (int i = 0; i < ODD.vocabSize(); i++) {
        assertEquals(ref.logits()[i], out[0][i], 2e-4 * Math.max(1, maxAbs), "logit " + i);
      }
      for (int l = 0; l < ODD.numLayers(); l++) {
        for (int p = 0; p < tokens.length; p++) {
          for (int d = 0; d < ODD.kvDim(); d++) {
            assertEquals(ref.keys()[l][p][d], kv.keys(l)[slots[p] * ODD.kvDim() + d], 1e-4, "key l" + l + " p" + p);
            assertEquals(ref.values()[l][p][d], kv.values(l)[slots[p] * ODD.kvDim() + d], 1e-4, "value l" + l + " p" + p);
          }
        }
      }
    }
  }

  @Test
  void decodeStepAfterPrefillMatchesReference() throws Exception {
    RandomModelWriter.write(dir, ODD, 3, SafetensorsDtype.F32);
    scaleUpWeights();
    int[] tokens = {9, 8, 7, 6, 5, 4};
    ReferenceLlama.Result ref = new ReferenceLlama(dir).run(tokens);
    try (LlamaModel model = LlamaModel.load(dir, 2)) {
      ArrayKvStore kv = new ArrayKvStore(ODD, 16);
      int[] slots = {3, 4, 5, 6, 7, 8};
      float[][] first = model.forward(List.of(new ForwardChunk(new int[] {9, 8, 7, 6, 5}, 0, slots, false)), kv);
      assertNull(first[0]);
      float[][] out = model.forward(List.of(new ForwardChunk(new int[] {4}, 5, slots, true)), kv);
      for (int i = 0; i < ODD.vocabSize(); i++) {
        assertEquals(ref.logits()[i], out[0][i], 2e-4, "logit " + i);
      }
    }
  }

  /**
   * With std 0.02 weights a random model's activations are tiny and attention is nearly uniform,
   * which would let a wrong RoPE or mask pass. Rewrite the weights with std 0.3.
   */
  private void scaleUpWeights() throws Exception {
    TestModels.rewriteScaled(dir, 15f);
  }

  @Test
  void badChunksAreRejectedWithClearMessages() throws Exception {
    RandomModelWriter.write(dir, ODD, 1, SafetensorsDtype.F32);
    try (LlamaModel model = LlamaModel.load(dir, 2)) {
      ArrayKvStore kv = new ArrayKvStore(ODD, 8);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> model.forward(List.of(new ForwardChunk(new int[] {97}, 0, new int[] {0}, true)), kv));
      assertTrue(e.getMessage().contains("token id 97"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> model.forward(List.of(new ForwardChunk(new int[] {1}, 0, new int[] {8}, true)), kv));
      assertTrue(e.getMessage().contains("slot 8"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> model.forward(List.of(new ForwardChunk(new int[] {1, 2}, 3, new int[] {0, 1, 2, 3}, true)), kv));
      assertTrue(e.getMessage().contains("needs 5 slots"), e.getMessage());
      ArrayKvStore wrong = new ArrayKvStore(ModelPreset.TINY.config(), 8);
      e = assertThrows(IllegalArgumentException.class,
          () -> model.forward(List.of(new ForwardChunk(new int[] {1}, 0, new int[] {0}, true)), wrong));
      assertTrue(e.getMessage().contains("KV store"), e.getMessage());
    }
  }
}
