package dev.tandem.engine.model;

import java.util.List;

/**
 * One forward step over a batch of chunks, layer by layer: every token of the batch goes through
 * a layer's projections together (weights stream from memory once per step, not once per token),
 * all K/V of the layer are written before the layer's attention reads them. Activations live in a
 * {@link Workspace} reused from step to step.
 */
final class ForwardPass {
  /** Tokens per matmul task: a long prefill is split by tokens as well as by panels, so many threads share it. */
  private static final int TOKEN_BLOCK = 64;
  /** Multiply-adds a matmul task should at least do, to amortize its hand-out. */
  private static final int MIN_TASK_FMAS = 1 << 16;

  private final LlamaWeights w;
  private final LlamaConfig c;
  private final Rope rope;
  private final WorkerPool pool;
  private final Workspace ws;
  private final int hidden;
  private final int qDim;
  private final int kvDim;
  private final int qkvDim;
  private final int inter;
  private final int headDim;
  private final int group;
  private final float scale;
  /** Per-thread attention scratch (a task may run on any thread, and twice: never shared). */
  private final ThreadLocal<float[]> scratch = ThreadLocal.withInitial(() -> new float[1024]);

  ForwardPass(LlamaWeights w, Rope rope, WorkerPool pool) {
    this.w = w;
    this.c = w.config;
    this.rope = rope;
    this.pool = pool;
    this.ws = new Workspace(c);
    hidden = c.hiddenSize();
    qDim = c.qDim();
    kvDim = c.kvDim();
    qkvDim = qDim + 2 * kvDim;
    inter = c.intermediateSize();
    headDim = c.headDim();
    group = c.numHeads() / c.numKvHeads();
    scale = (float) (1.0 / Math.sqrt(headDim));
  }

  float[][] run(List<ForwardChunk> chunks, KvStore kv) {
    int n = 0;
    int m = 0;
    for (ForwardChunk ch : chunks) {
      n += ch.tokens().length;
      m += ch.wantLogits() ? 1 : 0;
    }
    final int numTokens = n;
    ws.prepare(n, m, pool.quiescent());
    int t = 0;
    int blocks = 0;
    for (int ci = 0; ci < chunks.size(); ci++) {
      ForwardChunk ch = chunks.get(ci);
      for (int i = 0; i < ch.tokens().length; i++, t++) {
        ws.chunkOf[t] = ci;
        ws.posOf[t] = ch.startPos() + i;
        w.embed.row(ch.tokens()[i], ws.x, t * hidden);
        if (i % Attention.TOKEN_BLOCK == 0) {
          ws.blockFrom[blocks] = t;
          ws.blockTo[blocks++] = Math.min(t + Attention.TOKEN_BLOCK, t - i + ch.tokens().length);
        }
      }
    }
    final int attentionTasks = blocks * c.numKvHeads();
    for (int l = 0; l < c.numLayers(); l++) {
      if (l > 0 && !pool.quiescent()) {
        ws.renewShared(); // a straggler of the last layer may still write its arrays
      }
      LlamaWeights.Layer layer = w.layers[l];
      float[] keys = kv.keys(l);
      float[] values = kv.values(l);
      rmsNorm(ws.x, layer.attnNorm(), numTokens, ws.xn);
      matmul(layer.wqkv(), ws.xn, numTokens, ws.qkv);
      // Rotated in a copy (a straggling matmul task may still write unrotated rows into qkv).
      // RoPE and the KV writes run on this thread alone: the cache is shared state, never written by the pool.
      // The family's extras run here too, in a fixed order: q/k/v bias (Qwen2), per-head q/k RMSNorm (Qwen3).
      float[] rot = ws.rot;
      if (layer.qkvBias() == null) {
        System.arraycopy(ws.qkv, 0, rot, 0, numTokens * qkvDim);
      } else {
        addBias(ws.qkv, layer.qkvBias(), numTokens, qkvDim, rot);
      }
      int[] chunkOf = ws.chunkOf;
      int[] posOf = ws.posOf;
      for (int tok = 0; tok < numTokens; tok++) {
        int base = tok * qkvDim;
        int pos = posOf[tok];
        if (layer.qNorm() != null) {
          headNorms(rot, base, c.numHeads(), layer.qNorm());
          headNorms(rot, base + qDim, c.numKvHeads(), layer.kNorm());
        }
        rope.apply(rot, base, c.numHeads(), pos);
        rope.apply(rot, base + qDim, c.numKvHeads(), pos);
        int slot = chunks.get(chunkOf[tok]).slots()[pos];
        System.arraycopy(rot, base + qDim, keys, slot * kvDim, kvDim);
        System.arraycopy(rot, base + qDim + kvDim, values, slot * kvDim, kvDim);
      }
      float[] att = ws.att;
      int[] blockFrom = ws.blockFrom;
      int[] blockTo = ws.blockTo;
      pool.run(attentionTasks, task -> {
        int b = task / c.numKvHeads();
        int from = blockFrom[b];
        attend(rot, from, blockTo[b], posOf[from], chunks.get(chunkOf[from]).slots(), keys, values,
            task % c.numKvHeads(), att);
      });
      matmul(layer.wo(), att, numTokens, ws.o);
      if (layer.oBias() == null) {
        add(ws.x, ws.o, ws.h, numTokens * hidden);
      } else {
        addBiased(ws.x, ws.o, layer.oBias(), numTokens, ws.h);
      }
      rmsNorm(ws.h, layer.mlpNorm(), numTokens, ws.hn);
      matmul(layer.wGateUp(), ws.hn, numTokens, ws.gu);
      swiGlu(ws.gu, numTokens, ws.act);
      matmul(layer.wDown(), ws.act, numTokens, ws.down);
      add(ws.h, ws.down, ws.x, numTokens * hidden);
    }
    return logits(chunks, m);
  }

  private float[][] logits(List<ForwardChunk> chunks, int m) {
    float[][] result = new float[chunks.size()][];
    if (m == 0) {
      return result;
    }
    if (!pool.quiescent()) {
      ws.renewShared();
    }
    float[] last = ws.last;
    int row = 0;
    int t = 0;
    for (ForwardChunk ch : chunks) {
      t += ch.tokens().length;
      if (ch.wantLogits()) {
        System.arraycopy(ws.x, (t - 1) * hidden, ws.h, row++ * hidden, hidden);
      }
    }
    rmsNorm(ws.h, w.finalNorm, m, last);
    int vocab = c.vocabSize();
    float[] out = ws.logits;
    matmul(w.lmHead, last, m, out);
    row = 0;
    for (int ci = 0; ci < chunks.size(); ci++) {
      if (chunks.get(ci).wantLogits()) {
        result[ci] = java.util.Arrays.copyOfRange(out, row * vocab, ++row * vocab);
      }
    }
    return result;
  }

  /** Attention of batch tokens [from, to) (one chunk, from at position firstPos) for one KV head's query heads. */
  private void attend(float[] qkv, int from, int to, int firstPos, int[] slots, float[] keys, float[] values,
      int kvHead, float[] att) {
    float[] scratch = this.scratch.get();
    int need = Attention.scratchFloats(headDim, firstPos + (to - from) - 1);
    if (scratch.length < need) {
      scratch = new float[Math.max(need, 2 * scratch.length)];
      this.scratch.set(scratch);
    }
    Attention.block(qkv, qkvDim, from, to, firstPos, slots, keys, values, kvDim, kvHead, group, headDim, scale,
        scratch, att, qDim);
  }

  private void rmsNorm(float[] in, float[] weight, int numTokens, float[] out) {
    float eps = (float) c.rmsNormEps();
    for (int t = 0; t < numTokens; t++) {
      int o = t * hidden;
      float ss = Kernels.dot(in, o, in, o, hidden);
      float inv = (float) (1.0 / Math.sqrt(ss / hidden + eps));
      for (int i = 0; i < hidden; i++) {
        out[o + i] = weight[i] * (in[o + i] * inv);
      }
    }
  }

  /** RMSNorm of each of {@code heads} consecutive heads at {@code v[off]}, in place (Qwen3's q_norm / k_norm). */
  private void headNorms(float[] v, int off, int heads, float[] weight) {
    float eps = (float) c.rmsNormEps();
    for (int h = 0; h < heads; h++) {
      int o = off + h * headDim;
      float ss = Kernels.dot(v, o, v, o, headDim);
      float inv = (float) (1.0 / Math.sqrt(ss / headDim + eps));
      for (int i = 0; i < headDim; i++) {
        v[o + i] = weight[i] * (v[o + i] * inv);
      }
    }
  }

  /** out[t][j] = in[t][j] + bias[j] for t < numTokens, rows of {@code width}. */
  private static void addBias(float[] in, float[] bias, int numTokens, int width, float[] out) {
    for (int t = 0; t < numTokens; t++) {
      int o = t * width;
      for (int j = 0; j < width; j++) {
        out[o + j] = in[o + j] + bias[j];
      }
    }
  }

  /** sum = x + (delta + bias): a residual add after a projection with a bias. */
  private void addBiased(float[] x, float[] delta, float[] bias, int numTokens, float[] sum) {
    for (int t = 0; t < numTokens; t++) {
      int o = t * hidden;
      for (int j = 0; j < hidden; j++) {
        sum[o + j] = x[o + j] + (delta[o + j] + bias[j]);
      }
    }
  }

  private void swiGlu(float[] gu, int numTokens, float[] act) {
    pool.run(numTokens, t -> Kernels.swiGlu(gu, t * 2 * inter, inter, act, t * inter));
  }

  private static void add(float[] x, float[] delta, float[] sum, int n) {
    for (int i = 0; i < n; i++) {
      sum[i] = x[i] + delta[i];
    }
  }

  /**
   * out[t][o] = dot(weight row o, in row t) for t < numTokens, split into tasks of whole panels
   * (a panel's weights are read once per task) by blocks of tokens.
   */
  private void matmul(PackedMatrix weight, float[] in, int numTokens, float[] out) {
    int tokenBlocks = (numTokens + TOKEN_BLOCK - 1) / TOKEN_BLOCK;
    long panelWork = (long) weight.cols * weight.width * Math.min(numTokens, TOKEN_BLOCK);
    int wanted = (int) Math.max(1, (MIN_TASK_FMAS + panelWork - 1) / panelWork);
    int balanced = Math.max(1, weight.panels * tokenBlocks / (4 * pool.threads()));
    int perTask = Math.min(wanted, balanced);
    int groups = (weight.panels + perTask - 1) / perTask;
    int stride = weight.rows;
    pool.run(groups * tokenBlocks, task -> {
      int p0 = (task / tokenBlocks) * perTask;
      int t0 = (task % tokenBlocks) * TOKEN_BLOCK;
      Matmul.run(weight, p0, Math.min(weight.panels, p0 + perTask), in, t0,
          Math.min(numTokens, t0 + TOKEN_BLOCK), out, stride);
    });
  }
}
