package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A token's K/V rows and logits are bit-identical (compared as raw float bits) whether it is
 * computed alone one token per step, in a batch with other sequences, under any prefill chunking,
 * at any slots, and on any number of threads; for the tiny model of every family (biases, q/k
 * norms and rope scaling run outside the matmuls, one order each).
 */
class BatchInvarianceTest {
  @TempDir
  static Path dir;
  static final Map<FamilyConventions, Fixture> FIXTURES = new EnumMap<>(FamilyConventions.class);

  /** Per position of one sequence: logits (when the position ends a step) and K/V rows per layer. */
  record Expected(int[][] logitBits, int[][][] keyBits, int[][][] valueBits) {}

  /** One family's tiny model on two threads and on one, its prompts and their results alone. */
  record Fixture(Path dir, LlamaModel twoThreads, LlamaModel oneThread, int[][] prompts, Expected[] expected) {}

  static Fixture fixture(FamilyConventions family) throws Exception {
    Fixture f = FIXTURES.get(family);
    if (f == null) {
      Path d = dir.resolve(family.id());
      LlamaConfig c = family.config(ModelPreset.TINY);
      RandomModelWriter.write(d, c, 21, SafetensorsDtype.F32);
      TestModels.rewriteFamily(d, 10f); // sharper attention: differences would show
      LlamaModel twoThreads = LlamaModel.load(d, 2);
      LlamaModel oneThread = LlamaModel.load(d, 1);
      Random r = new Random(4);
      int[] lengths = {61, 130, 23, 9};
      int[][] prompts = new int[lengths.length][];
      for (int s = 0; s < lengths.length; s++) {
        prompts[s] = r.ints(lengths[s], 0, 1024).toArray();
      }
      prompts[2] = java.util.Arrays.copyOf(prompts[0], 23); // shares a prefix with sequence 0
      Expected[] expected = new Expected[prompts.length];
      for (int s = 0; s < prompts.length; s++) {
        expected[s] = runAlone(oneThread, prompts[s]);
      }
      f = new Fixture(d, twoThreads, oneThread, prompts, expected);
      FIXTURES.put(family, f);
    }
    return f;
  }

  @AfterAll
  static void tearDown() {
    for (Fixture f : FIXTURES.values()) {
      f.twoThreads().close();
      f.oneThread().close();
    }
  }

  /** Reference: the sequence alone, one token per step, logits at every position. */
  private static Expected runAlone(LlamaModel m, int[] prompt) {
    int n = prompt.length;
    ArrayKvStore kv = new ArrayKvStore(m.config(), n);
    int[] slots = new int[n];
    for (int i = 0; i < n; i++) {
      slots[i] = i;
    }
    int[][] logits = new int[n][];
    for (int p = 0; p < n; p++) {
      logits[p] = bits(m.forward(List.of(new ForwardChunk(new int[] {prompt[p]}, p, slots, true)), kv)[0]);
    }
    return new Expected(logits, rows(kv, slots, n, true), rows(kv, slots, n, false));
  }

  /**
   * All sequences advance together: each step holds the next chunk of every unfinished sequence
   * ({@code chunkSizes[s]} tokens), at slots scattered by {@code slotSeed}; checks every result.
   */
  private static void runBatched(Fixture f, LlamaModel m, int[] seqs, int[] chunkSizes, long slotSeed) {
    int[][] prompts = f.prompts();
    Expected[] expected = f.expected();
    int total = 0;
    for (int s : seqs) {
      total += prompts[s].length;
    }
    List<Integer> free = new ArrayList<>();
    for (int i = 0; i < total + 37; i++) {
      free.add(i);
    }
    java.util.Collections.shuffle(free, new Random(slotSeed));
    ArrayKvStore kv = new ArrayKvStore(m.config(), total + 37);
    int[][] slots = new int[seqs.length][];
    int at = 0;
    for (int i = 0; i < seqs.length; i++) {
      slots[i] = new int[prompts[seqs[i]].length];
      for (int p = 0; p < slots[i].length; p++) {
        slots[i][p] = free.get(at++);
      }
    }
    int[] done = new int[seqs.length];
    boolean more = true;
    while (more) {
      List<ForwardChunk> chunks = new ArrayList<>();
      List<Integer> owners = new ArrayList<>();
      for (int i = 0; i < seqs.length; i++) {
        int[] prompt = prompts[seqs[i]];
        if (done[i] < prompt.length) {
          int len = Math.min(chunkSizes[i], prompt.length - done[i]);
          chunks.add(new ForwardChunk(java.util.Arrays.copyOfRange(prompt, done[i], done[i] + len), done[i],
              slots[i], true));
          owners.add(i);
        }
      }
      float[][] out = m.forward(chunks, kv);
      for (int c = 0; c < chunks.size(); c++) {
        int i = owners.get(c);
        int lastPos = done[i] + chunks.get(c).tokens().length - 1;
        int[] want = expected[seqs[i]].logitBits()[lastPos];
        if (!java.util.Arrays.equals(want, bits(out[c]))) {
          fail("logits of sequence " + seqs[i] + " at position " + lastPos + " differ");
        }
        done[i] = lastPos + 1;
      }
      more = owners.size() > 0 && java.util.stream.IntStream.range(0, seqs.length)
          .anyMatch(i -> done[i] < prompts[seqs[i]].length);
    }
    for (int i = 0; i < seqs.length; i++) {
      int n = prompts[seqs[i]].length;
      assertTrue(java.util.Arrays.deepEquals(expected[seqs[i]].keyBits(), rows(kv, slots[i], n, true)),
          "keys of sequence " + seqs[i]);
      assertTrue(java.util.Arrays.deepEquals(expected[seqs[i]].valueBits(), rows(kv, slots[i], n, false)),
          "values of sequence " + seqs[i]);
    }
  }

  @ParameterizedTest
  @EnumSource(FamilyConventions.class)
  void eachChunkSizeAloneMatchesTokenByToken(FamilyConventions family) throws Exception {
    Fixture f = fixture(family);
    for (int size : new int[] {1, 7, 16, 512}) {
      for (int s = 0; s < f.prompts().length; s++) {
        runBatched(f, f.twoThreads(), new int[] {s}, new int[] {size}, size * 31L + s);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(FamilyConventions.class)
  void batchedWithOtherSequencesMatches(FamilyConventions family) throws Exception {
    Fixture f = fixture(family);
    for (int size : new int[] {1, 7, 16, 512}) {
      runBatched(f, f.twoThreads(), new int[] {0, 1, 2, 3}, new int[] {size, size, size, size}, size);
    }
  }

  @ParameterizedTest
  @EnumSource(FamilyConventions.class)
  void mixedChunkSizesInOneBatchAndOneThreadMatch(FamilyConventions family) throws Exception {
    Fixture f = fixture(family);
    runBatched(f, f.twoThreads(), new int[] {1, 0, 3, 2}, new int[] {16, 7, 1, 512}, 99);
    runBatched(f, f.oneThread(), new int[] {3, 1, 0}, new int[] {5, 33, 2}, 7);
  }

  /** More threads than cores: workers get descheduled mid-task and the caller reruns their tasks. */
  @ParameterizedTest
  @EnumSource(FamilyConventions.class)
  void oversubscribedPoolMatches(FamilyConventions family) throws Exception {
    Fixture f = fixture(family);
    try (LlamaModel sixThreads = LlamaModel.load(f.dir(), 6)) {
      runBatched(f, sixThreads, new int[] {0, 1, 2, 3}, new int[] {7, 16, 1, 3}, 5);
      runBatched(f, sixThreads, new int[] {1}, new int[] {1}, 6);
    }
  }

  private static int[] bits(float[] v) {
    int[] b = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = Float.floatToRawIntBits(v[i]);
    }
    return b;
  }

  private static int[][][] rows(ArrayKvStore kv, int[] slots, int n, boolean keys) {
    int d = kv.kvDim();
    int[][][] out = new int[kv.numLayers()][n][];
    for (int l = 0; l < kv.numLayers(); l++) {
      float[] a = keys ? kv.keys(l) : kv.values(l);
      for (int p = 0; p < n; p++) {
        out[l][p] = bits(java.util.Arrays.copyOfRange(a, slots[p] * d, (slots[p] + 1) * d));
      }
    }
    return out;
  }
}
