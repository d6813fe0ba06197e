package dev.tandem.engine.sched;

import dev.tandem.engine.model.KvStore;
import dev.tandem.engine.model.ForwardChunk;
import dev.tandem.engine.model.LlamaConfig;
import java.util.List;

/**
 * A stand-in model for scheduler tests (the real one is tested with the real model elsewhere):
 * each position's K row holds a hash chained from the previous position's K row, read back from
 * the KV store through the chunk's slots, and logits are a function of the last hash. Any slot
 * mix-up (wrong page, lost or overwritten KV) changes the tokens, so the scheduler's page
 * bookkeeping is checked against {@link #reference}.
 */
public final class ChainedHashModel implements ForwardModel {
  static final int VOCAB = 258;
  private final LlamaConfig config;
  volatile int steps;
  /** Slows each step down, so tests can act while a request is still running. */
  public volatile long stepDelayMillis;
  /** A fault to provoke: the next step throws, as a broken kernel would. */
  public volatile boolean failNextStep;

  public ChainedHashModel(int maxPositions) {
    this.config = new LlamaConfig(VOCAB, 8, 16, 2, 1, 1, 4, 10000, 1e-5, maxPositions, true,
        ByteTokenizer.BOS, ByteTokenizer.EOS);
  }

  @Override
  public LlamaConfig config() {
    return config;
  }

  @Override
  public String fingerprint() {
    return "chained-hash-v1";
  }

  @Override
  public float[][] forward(List<ForwardChunk> chunks, KvStore kv) {
    steps++;
    if (failNextStep) {
      failNextStep = false;
      throw new IllegalStateException("injected step fault");
    }
    if (stepDelayMillis > 0) {
      try {
        Thread.sleep(stepDelayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    float[][] out = new float[chunks.size()][];
    int dim = kv.kvDim();
    for (int c = 0; c < chunks.size(); c++) {
      ForwardChunk chunk = chunks.get(c);
      int state = 0;
      for (int i = 0; i < chunk.tokens().length; i++) {
        int pos = chunk.startPos() + i;
        int prev = pos == 0 ? 17 : (int) kv.keys(0)[chunk.slots()[pos - 1] * dim];
        state = next(prev, chunk.tokens()[i], pos);
        for (int l = 0; l < kv.numLayers(); l++) {
          kv.keys(l)[chunk.slots()[pos] * dim] = state;
          kv.values(l)[chunk.slots()[pos] * dim + 1] = pos;
        }
      }
      if (chunk.wantLogits()) {
        out[c] = logits(state);
      }
    }
    return out;
  }

  static int next(int prev, int token, int pos) {
    return (int) (((long) prev * 31 + token * 7L + pos * 13L + 5) % 1_000_003L);
  }

  static float[] logits(int state) {
    float[] l = new float[VOCAB];
    for (int v = 0; v < VOCAB; v++) {
      long h = ((long) state * 1_103_515_245L + v * 12_345L + 7) % 9973L;
      l[v] = h / 997f;
    }
    // keep EOS rare so sequences run to max_tokens unless a test wants otherwise
    l[ByteTokenizer.EOS] = -50f;
    return l;
  }

  /** Greedy continuation computed without any KV cache: the expected output. */
  public static int[] reference(int[] prompt, int maxTokens) {
    int state = 17;
    int[] all = java.util.Arrays.copyOf(prompt, prompt.length + maxTokens);
    int len = prompt.length;
    for (int pos = 0; pos < len; pos++) {
      state = next(state, all[pos], pos);
    }
    int[] out = new int[maxTokens];
    for (int i = 0; i < maxTokens; i++) {
      int t = Sampler.argmax(logits(state));
      out[i] = t;
      all[len] = t;
      state = next(state, t, len);
      len++;
    }
    return out;
  }
}
