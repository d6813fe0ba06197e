package dev.tandem.engine.model;

import dev.tandem.engine.kv.KvStore;
import java.util.List;

/**
 * One forward step over a batch of chunks, layer by layer: every token of the batch goes through
 * a layer's projections together (weights stream from memory once per step, not once per token),
 * all K/V of the layer are written before the layer's attention reads them.
 */
final class ForwardPass {
  /** Output rows per matmul task: small enough to balance two threads, large enough to amortize a hand-out. */
  private static final int ROWS_PER_TASK = 16;
  private static final int HEADS_PER_TASK = 1;

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
    float[] xb = new float[n * hidden];
    float[] qkv = new float[n * qkvDim];
    float[] att = new float[n * qDim];
    float[] gu = new float[n * 2 * inter];
    float[] act = new float[n * inter];
    float[] delta = new float[n * hidden];

    for (int l = 0; l < c.numLayers(); l++) {
      LlamaWeights.Layer layer = w.layers[l];
      float[] keys = kv.keys(l);
      float[] values = kv.values(l);
      rmsNorm(x, layer.attnNorm(), xb, numTokens);
      matmul(layer.wqkv(), qkvDim, hidden, xb, numTokens, qkv);
      pool.run(numTokens, tok -> {
        int base = tok * qkvDim;
        int pos = posOf[tok];
        rope.apply(qkv, base, c.numHeads(), pos);
        rope.apply(qkv, base + qDim, c.numKvHeads(), pos);
        int slot = chunks.get(chunkOf[tok]).slots()[pos];
        System.arraycopy(qkv, base + qDim, keys, slot * kvDim, kvDim);
        System.arraycopy(qkv, base + qDim + kvDim, values, slot * kvDim, kvDim);
      });
      int headTasks = numTokens * c.numHeads();
      pool.run((headTasks + HEADS_PER_TASK - 1) / HEADS_PER_TASK, task -> {
        int end = Math.min(headTasks, (task + 1) * HEADS_PER_TASK);
        for (int th = task * HEADS_PER_TASK; th < end; th++) {
          int tok = th / c.numHeads();
          attendHead(qkv, tok, th % c.numHeads(), posOf[tok], chunks.get(chunkOf[tok]).slots(), keys, values, att);
        }
      });
      matmul(layer.wo(), hidden, qDim, att, numTokens, delta);
      addInPlace(x, delta);
      rmsNorm(x, layer.mlpNorm(), xb, numTokens);
      matmul(layer.wGateUp(), 2 * inter, hidden, xb, numTokens, gu);
      swiGlu(gu, act, numTokens);
      matmul(layer.wDown(), hidden, inter, act, numTokens, delta);
      addInPlace(x, delta);
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
    float[] normed = new float[m * hidden];
    rmsNorm(last, w.finalNorm, normed, m);
    int vocab = c.vocabSize();
    float[] out = new float[m * vocab];
    matmul(w.lmHead, vocab, hidden, normed, m, out);
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
      float e = (float) Math.exp(scores[j] - max);
      scores[j] = e;
      sum += e;
    }
    float inv = 1f / sum;
    int out = tok * qDim + head * headDim;
    java.util.Arrays.fill(att, out, out + headDim, 0f);
    for (int j = 0; j <= pos; j++) {
      float p = scores[j] * inv;
      int v = slots[j] * kvDim + kvOff;
      for (int d = 0; d < headDim; d++) {
        att[out + d] += p * values[v + d];
      }
    }
  }

  private void rmsNorm(float[] in, float[] weight, float[] out, int numTokens) {
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

  private void swiGlu(float[] gu, float[] act, int numTokens) {
    pool.run(numTokens, t -> {
      int g = t * 2 * inter;
      int a = t * inter;
      for (int i = 0; i < inter; i++) {
        float gate = gu[g + i];
        float silu = gate / (1f + (float) Math.exp(-gate));
        act[a + i] = silu * gu[g + inter + i];
      }
    });
  }

  private static void addInPlace(float[] x, float[] delta) {
    for (int i = 0; i < x.length; i++) {
      x[i] += delta[i];
    }
  }

  private void matmul(float[] weight, int outDim, int inDim, float[] in, int numTokens, float[] out) {
    int tasks = (outDim + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
    pool.run(tasks, task -> Kernels.matmulRows(weight, inDim, task * ROWS_PER_TASK,
        Math.min(outDim, (task + 1) * ROWS_PER_TASK), in, numTokens, out, outDim));
  }
}
