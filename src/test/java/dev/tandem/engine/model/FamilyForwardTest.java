package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each family's forward pass against {@link ReferenceLlama} (double precision, straight from the
 * formulas), with odd shapes: Llama 3.1 rope scaling with all three frequency bands in play, Qwen2
 * q/k/v biases on tied embeddings, Qwen3 q/k norms with head_dim unlike hidden / heads and
 * attention_bias (q/k/v/o biases).
 */
class FamilyForwardTest {
  /** theta 10000, head_dim 10, original context 64: wavelengths 6.3 (kept), 40 (interpolated), 250 (scaled). */
  static final LlamaConfig LLAMA3 = new LlamaConfig(ModelFamily.LLAMA, 97, 40, 54, 2, 6, 2, 10, 10000.0,
      new RopeScaling(8.0, 1.0, 4.0, 64), 1e-5, 64, false, false, 1, List.of(2, 3));
  static final LlamaConfig QWEN2 = new LlamaConfig(ModelFamily.QWEN2, 97, 40, 54, 2, 4, 2, 10, 1000000.0, null,
      1e-6, 64, true, false, 1, List.of(2));
  static final LlamaConfig QWEN3 = new LlamaConfig(ModelFamily.QWEN3, 97, 40, 54, 2, 6, 2, 12, 1000000.0, null,
      1e-6, 64, false, true, 1, List.of(2));

  @TempDir
  Path dir;

  static Stream<Named<LlamaConfig>> families() {
    return Stream.of(Named.of("llama3", LLAMA3), Named.of("qwen2", QWEN2), Named.of("qwen3", QWEN3));
  }

  private void write(LlamaConfig c, long seed) throws Exception {
    RandomModelWriter.write(dir, c, seed, SafetensorsDtype.F32);
    TestModels.rewriteFamily(dir, 15f);
  }

  @ParameterizedTest
  @MethodSource("families")
  void prefillLogitsAndKvMatchTheReference(LlamaConfig c) throws Exception {
    write(c, 11);
    int[] tokens = {5, 17, 96, 0, 42, 42, 7, 63, 88, 1, 30};
    ReferenceLlama.Result ref = new ReferenceLlama(dir).run(tokens);
    try (LlamaModel model = LlamaModel.load(dir, 2)) {
      assertEquals(c, model.config());
      ArrayKvStore kv = new ArrayKvStore(c, 32);
      int[] slots = IntStream.range(0, tokens.length).map(i -> 31 - 2 * i).toArray();
      float[] logits = model.forward(List.of(new ForwardChunk(tokens, 0, slots, true)), kv)[0];
      double maxAbs = 0;
      for (double v : ref.logits()) {
        maxAbs = Math.max(maxAbs, Math.abs(v));
      }
      assertTrue(maxAbs > 0.05, "logits should not be trivially small: " + maxAbs);
      for (int i = 0; i < c.vocabSize(); i++) {
        assertEquals(ref.logits()[i], logits[i], 2e-4 * Math.max(1, maxAbs), "logit " + i);
      }
      for (int l = 0; l < c.numLayers(); l++) {
        for (int p = 0; p < tokens.length; p++) {
          for (int d = 0; d < c.kvDim(); d++) {
            assertEquals(ref.keys()[l][p][d], kv.keys(l)[slots[p] * c.kvDim() + d], 2e-4, "key l" + l + " p" + p);
            assertEquals(ref.values()[l][p][d], kv.values(l)[slots[p] * c.kvDim() + d], 2e-4, "value l" + l + " p" + p);
          }
        }
      }
    }
  }

  @ParameterizedTest
  @MethodSource("families")
  void decodeStepAfterPrefillMatchesTheReference(LlamaConfig c) throws Exception {
    write(c, 3);
    int[] tokens = {9, 8, 7, 6, 5, 4, 60, 61};
    ReferenceLlama.Result ref = new ReferenceLlama(dir).run(tokens);
    try (LlamaModel model = LlamaModel.load(dir, 2)) {
      ArrayKvStore kv = new ArrayKvStore(c, 16);
      int[] slots = {3, 4, 5, 6, 7, 8, 9, 10};
      model.forward(List.of(new ForwardChunk(java.util.Arrays.copyOf(tokens, 7), 0, slots, false)), kv);
      float[] out = model.forward(List.of(new ForwardChunk(new int[] {61}, 7, slots, true)), kv)[0];
      for (int i = 0; i < c.vocabSize(); i++) {
        assertEquals(ref.logits()[i], out[i], 2e-4 * Math.max(1, Math.abs(ref.logits()[i])), "logit " + i);
      }
    }
  }

  /** Each family feature changes the result: the reference check above would catch it missing. */
  @Test
  void eachFamilyFeatureMatters() throws Exception {
    int[] tokens = {9, 8, 7, 6, 5, 4, 60, 61};
    for (LlamaConfig c : List.of(LLAMA3, QWEN2, QWEN3)) {
      write(c, 5);
      float[] with;
      try (LlamaModel model = LlamaModel.load(dir, 1)) {
        with = model.forward(List.of(new ForwardChunk(tokens, 0, IntStream.range(0, 8).toArray(), true)),
            new ArrayKvStore(c, 8))[0];
      }
      LlamaConfig plain = new LlamaConfig(ModelFamily.LLAMA, c.vocabSize(), c.hiddenSize(), c.intermediateSize(),
          c.numLayers(), c.numHeads(), c.numKvHeads(), c.headDim(), c.ropeTheta(), null, c.rmsNormEps(),
          c.maxPositionEmbeddings(), c.tieWordEmbeddings(), false, c.bosTokenId(), c.eosTokenIds());
      java.nio.file.Files.writeString(dir.resolve(LlamaConfig.FILE_NAME),
          RandomModelWriter.configJson(plain, SafetensorsDtype.F32).encodePrettily());
      try (LlamaModel model = LlamaModel.load(dir, 1)) {
        float[] without = model.forward(List.of(new ForwardChunk(tokens, 0, IntStream.range(0, 8).toArray(), true)),
            new ArrayKvStore(plain, 8))[0];
        assertNotEquals(java.util.Arrays.toString(with), java.util.Arrays.toString(without), c.family() + " "
            + c.ropeScaling());
      }
    }
  }
}
