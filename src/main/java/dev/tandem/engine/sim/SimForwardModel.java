package dev.tandem.engine.sim;

import dev.tandem.engine.model.ForwardChunk;
import dev.tandem.engine.model.KvStore;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.sched.ForwardModel;
import java.util.List;

/**
 * The model of a simulated engine: no weights, no arithmetic worth the name, but the engine's real
 * KV cache, scheduler and MicroServing paths around it, and the step time of the profile's GPU.
 *
 * <p>Tokens are deterministic: each position's KV row holds a hash chained from the previous
 * position's row (read back through the chunk's slots) and the token, and the next token is a
 * function of the last hash. So an answer depends on the whole context exactly as a real model's
 * does: the same prompt gives the same answer alone, batched, chunked, from the prefix cache or
 * over KV received from another engine (disaggregated = colocated), and any lost or misplaced KV
 * row changes the answer. The stored rows are tiny (one layer, two floats per position): what a
 * 32-layer model would hold is only timed, never allocated.
 *
 * <p>{@link #forward} runs on the engine's step thread and waits there for the step's simulated
 * duration ({@link Pacer}); the thread sleeps rather than spins, so dozens of simulated engines
 * share two cores.
 */
public final class SimForwardModel implements ForwardModel {

  /** Storage shape of a simulated KV row: K holds the chained hash, V the token (a check). */
  static final int KV_DIM = 2;
  private static final int HASH_MOD = 1 << 24; // exact in a float
  private static final int SEED_STATE = 0x5eed;

  private final LlamaConfig config;
  private final StepTimeModel timing;
  private final Pacer pacer;
  private final int firstToken;
  private volatile long steps;

  /**
   * @param vocab the tokenizer's model: vocabulary size, special ids and context window (the
   *     profile's context caps it)
   */
  public SimForwardModel(LlamaConfig vocab, StepTimeModel timing, Pacer pacer) {
    int context = Math.min(vocab.maxPositionEmbeddings(), timing.profile().model().context());
    this.config = new LlamaConfig(vocab.vocabSize(), KV_DIM, KV_DIM, 1, 1, 1, KV_DIM, 10000.0,
        1e-5, context, true, vocab.bosTokenId(), vocab.eosTokenId());
    this.timing = timing;
    this.pacer = pacer;
    this.firstToken = Math.min(3, vocab.vocabSize() - 1); // byte-level BPEs put specials first
  }

  @Override
  public LlamaConfig config() {
    return config;
  }

  /** Engines with the same profile and vocabulary can exchange KV. */
  @Override
  public String fingerprint() {
    return "sim-v1:" + timing.profile().name() + ":" + config.vocabSize();
  }

  public long steps() {
    return steps;
  }

  @Override
  public float[][] forward(List<ForwardChunk> chunks, KvStore kv) {
    long nanos = timing.stepNanos(chunks);
    float[][] out = new float[chunks.size()][];
    float[] keys = kv.keys(0);
    float[] values = kv.values(0);
    int dim = kv.kvDim();
    for (int c = 0; c < chunks.size(); c++) {
      ForwardChunk chunk = chunks.get(c);
      int[] slots = chunk.slots();
      int state = 0;
      for (int i = 0; i < chunk.tokens().length; i++) {
        int pos = chunk.startPos() + i;
        int prev = pos == 0 ? SEED_STATE : (int) keys[slots[pos - 1] * dim];
        state = next(prev, chunk.tokens()[i], pos);
        keys[slots[pos] * dim] = state;
        values[slots[pos] * dim] = chunk.tokens()[i];
      }
      if (chunk.wantLogits()) {
        out[c] = logits(state);
      }
    }
    steps++;
    pacer.pass(nanos);
    return out;
  }

  /** The chained hash of a position: previous state, this token, this position. */
  static int next(int prev, int token, int pos) {
    long z = (prev * 0x9E3779B1L) ^ (token * 0x85EBCA77L) ^ (pos * 0xC2B2AE3DL);
    z ^= z >>> 29;
    z *= 0xBF58476D1CE4E5B9L;
    z ^= z >>> 32;
    return (int) Math.floorMod(z, HASH_MOD);
  }

  /** The token a context with this final state continues with: never a special token. */
  int tokenFor(int state) {
    int span = config.vocabSize() - firstToken;
    int t = firstToken + Math.floorMod(state * 31 + 7, span);
    if (t == config.eosTokenId() || t == config.bosTokenId()) {
      t = firstToken + Math.floorMod(t + 1 - firstToken, span);
    }
    return t;
  }

  /** One clear winner (greedy picks it) and a second choice, so sampling is not degenerate. */
  private float[] logits(int state) {
    float[] l = new float[config.vocabSize()];
    int best = tokenFor(state);
    int second = tokenFor(next(state, 1, 0));
    l[second] = 6f;
    l[best] = 8f;
    return l;
  }
}
