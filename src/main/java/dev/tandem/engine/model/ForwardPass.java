package dev.tandem.engine.model;

import java.util.List;

/**
 * One forward step over a batch of chunks, layer by layer: every token of the batch goes through
 * a layer's projections together (weights stream from memory once per step, not once per token),
 * all K/V of the layer are written before the layer's attention reads them.
 */
final class ForwardPass {
  /** Output rows per matmul task: small enough to balance two threads, large enough to amortize a hand-out. */
  private static final int ROWS_PER_TASK = 16;

  private final LlamaWeights w;
  private final LlamaConfig c;
  private final Rope rope;
  private final WorkerPool pool;
  private final int hidden;
  private final int qDim;
  private final int kvDim;
  private final int qkvDim;
  private final int inter;
  private final int headDim;
  private final int group;
  private final float scale;

  ForwardPass(LlamaWeights w, Rope rope, WorkerPool pool) {
    this.w = w;
    this.c = w.config;
    this.rope = rope;
    this.pool = pool;
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
    for (ForwardChunk ch : chunks) {
      n += ch.tokens().length;
    }
    final int numTokens = n;
    int[] chunkOf = new int[n];
    int[] posOf = new int[n];
    float[] x = new float[n * hidden];
    int t = 0;
    for (int ci = 0; ci < chunks.size(); ci++) {
      ForwardChunk ch = chunks.get(ci);
      for (int i = 0; i < ch.tokens().length; i++, t++) {
        chunkOf[t] = ci;
        posOf[t] = ch.startPos() + i;
        System.arraycopy(w.embed, ch.tokens()[i] * hidden, x, t * hidden, hidden);
      }
    }
    // Every phase writes a fresh array (see WorkerPool: a straggling task may run late or twice).
    for (int l = 0; l < c.numLayers(); l++) {
      LlamaWeights.Layer layer = w.layers[l];
      float[] keys = kv.keys(l);
      float[] values = kv.values(l);
      // Rotated in a copy: a straggling matmul task may still write its (unrotated) rows into its output.
      float[] qkv = matmul(layer.wqkv(), qkvDim, hidden, rmsNorm(x, layer.attnNorm(), numTokens), numTokens).clone();
      // RoPE and the KV writes run on this thread alone: the cache is shared state, never written by the pool.
      for (int tok = 0; tok < numTokens; tok++) {
        int base = tok * qkvDim;
        int pos = posOf[tok];
        rope.apply(qkv, base, c.numHeads(), pos);
        rope.apply(qkv, base + qDim, c.numKvHeads(), pos);
        int slot = chunks.get(chunkOf[tok]).slots()[pos];
        System.arraycopy(qkv, base + qDim, keys, slot * kvDim, kvDim);
        System.arraycopy(qkv, base + qDim + kvDim, values, slot * kvDim, kvDim);
      }
      float[] att = new float[numTokens * qDim];
      int headTasks = numTokens * c.numHeads();
      pool.run(headTasks, th -> {
        int tok = th / c.numHeads();
        attendHead(qkv, tok, th % c.numHeads(), posOf[tok], chunks.get(chunkOf[tok]).slots(), keys, values, att);
      });
      float[] h = add(x, matmul(layer.wo(), hidden, qDim, att, numTokens));
      float[] gu = matmul(layer.wGateUp(), 2 * inter, hidden, rmsNorm(h, layer.mlpNorm(), numTokens), numTokens);
      x = add(h, matmul(layer.wDown(), hidden, inter, swiGlu(gu, numTokens), numTokens));
    }
    return logits(chunks, x);
  }

  private float[][] logits(List<ForwardChunk> chunks, float[] x) {
    int m = 0;
    for (ForwardChunk ch : chunks) {
      m += ch.wantLogits() ? 1 : 0;
    }
    float[][] result = new float[chunks.size()][];
    if (m == 0) {
      return result;
    }
    float[] last = new float[m * hidden];
    int row = 0;
    int t = 0;
    for (ForwardChunk ch : chunks) {
      t += ch.tokens().length;
      if (ch.wantLogits()) {
        System.arraycopy(x, (t - 1) * hidden, last, row++ * hidden, hidden);
      }
    }
    int vocab = c.vocabSize();
    float[] out = matmul(w.lmHead, vocab, hidden, rmsNorm(last, w.finalNorm, m), m);
    row = 0;
    for (int ci = 0; ci < chunks.size(); ci++) {
      if (chunks.get(ci).wantLogits()) {
        float[] r = new float[vocab];
        System.arraycopy(out, row++ * vocab, r, 0, vocab);
        result[ci] = r;
      }
    }
    return result;
  }

  /** Causal attention of one query head over positions 0..pos of its sequence. */
  private void attendHead(float[] qkv, int tok, int head, int pos, int[] slots, float[] keys, float[] values,
      float[] att) {
    int qOff = tok * qkvDim + head * headDim;
    int kvOff = (head / group) * headDim;
    float[] scores = new float[pos + 1];
    float max = Float.NEGATIVE_INFINITY;
    for (int j = 0; j <= pos; j++) {
      float s = Kernels.dot(qkv, qOff, keys, slots[j] * kvDim + kvOff, headDim) * scale;
      scores[j] = s;
      max = Math.max(max, s);
    }
    float sum = 0f;
    for (int j = 0; j <= pos; j++) {
      float e = Kernels.exp(scores[j] - max);
      scores[j] = e;
      sum += e;
    }
    float inv = 1f / sum;
    float[] acc = new float[headDim]; // local, then stored: a task may run twice (see WorkerPool)
    for (int j = 0; j <= pos; j++) {
      float p = scores[j] * inv;
      int v = slots[j] * kvDim + kvOff;
      for (int d = 0; d < headDim; d++) {
        acc[d] += p * values[v + d];
      }
    }
    System.arraycopy(acc, 0, att, tok * qDim + head * headDim, headDim);
  }

  private float[] rmsNorm(float[] in, float[] weight, int numTokens) {
    float[] out = new float[numTokens * hidden];
    float eps = (float) c.rmsNormEps();
    for (int t = 0; t < numTokens; t++) {
      int o = t * hidden;
      float ss = Kernels.dot(in, o, in, o, hidden);
      float inv = (float) (1.0 / Math.sqrt(ss / hidden + eps));
      for (int i = 0; i < hidden; i++) {
        out[o + i] = weight[i] * (in[o + i] * inv);
      }
    }
    return out;
  }

  private float[] swiGlu(float[] gu, int numTokens) {
    float[] act = new float[numTokens * inter];
    pool.run(numTokens, t -> {
      int g = t * 2 * inter;
      int a = t * inter;
      for (int i = 0; i < inter; i++) {
        float gate = gu[g + i];
        float silu = gate / (1f + Kernels.exp(-gate));
        act[a + i] = silu * gu[g + inter + i];
      }
    });
    return act;
  }

  private static float[] add(float[] x, float[] delta) {
    float[] sum = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      sum[i] = x[i] + delta[i];
    }
    return sum;
  }

  /** out[t][o] = dot(weight row o, in row t), split across output rows. */
  private float[] matmul(float[] weight, int outDim, int inDim, float[] in, int numTokens) {
    float[] out = new float[numTokens * outDim];
    int tasks = (outDim + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
    pool.run(tasks, task -> Kernels.matmulRows(weight, inDim, task * ROWS_PER_TASK,
        Math.min(outDim, (task + 1) * ROWS_PER_TASK), in, numTokens, out, outDim));
    return out;
  }
}
