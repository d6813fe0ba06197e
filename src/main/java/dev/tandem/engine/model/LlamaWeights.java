package dev.tandem.engine.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * All weights of a Llama model as float arrays, in the layouts the forward pass wants: q/k/v
 * projections fused into one [qDim + 2 kvDim, hidden] matrix and gate/up into one
 * [2 intermediate, hidden] matrix (fewer, larger parallel loops). Also computes the fingerprint.
 */
final class LlamaWeights {

  /** One decoder layer. Matrices are row-major [out, in], as Hugging Face stores them. */
  record Layer(float[] attnNorm, float[] wqkv, float[] wo, float[] mlpNorm, float[] wGateUp, float[] wDown) {}

  final LlamaConfig config;
  final float[] embed;
  final Layer[] layers;
  final float[] finalNorm;
  final float[] lmHead;
  final String fingerprint;
  /** Bytes the weights occupy as float arrays (lm_head counted once when tied). */
  final long floatBytes;

  private LlamaWeights(LlamaConfig config, float[] embed, Layer[] layers, float[] finalNorm,
      float[] lmHead, String fingerprint) {
    this.config = config;
    this.embed = embed;
    this.layers = layers;
    this.finalNorm = finalNorm;
    this.lmHead = lmHead;
    this.fingerprint = fingerprint;
    long n = embed.length + finalNorm.length + (lmHead == embed ? 0 : lmHead.length);
    for (Layer l : layers) {
      n += l.attnNorm.length + l.wqkv.length + l.wo.length + l.mlpNorm.length + l.wGateUp.length + l.wDown.length;
    }
    this.floatBytes = n * Float.BYTES;
  }

  static LlamaWeights load(Path dir) throws ModelLoadException {
    LlamaConfig c = LlamaConfig.load(dir);
    MessageDigest digest = sha256();
    try {
      digest.update(Files.readAllBytes(dir.resolve(LlamaConfig.FILE_NAME)));
    } catch (IOException e) {
      throw new ModelLoadException(dir.resolve(LlamaConfig.FILE_NAME) + ": cannot read: " + e.getMessage(), e);
    }
    try (WeightFiles files = WeightFiles.open(dir)) {
      long h = c.hiddenSize();
      long kv = c.kvDim();
      long q = c.qDim();
      long inter = c.intermediateSize();
      float[] embed = files.read("model.embed_tokens.weight", digest, c.vocabSize(), h);
      Layer[] layers = new Layer[c.numLayers()];
      for (int i = 0; i < layers.length; i++) {
        String p = "model.layers." + i + ".";
        float[] attnNorm = files.read(p + "input_layernorm.weight", digest, h);
        float[] wq = files.read(p + "self_attn.q_proj.weight", digest, q, h);
        float[] wk = files.read(p + "self_attn.k_proj.weight", digest, kv, h);
        float[] wv = files.read(p + "self_attn.v_proj.weight", digest, kv, h);
        float[] wo = files.read(p + "self_attn.o_proj.weight", digest, h, q);
        float[] mlpNorm = files.read(p + "post_attention_layernorm.weight", digest, h);
        float[] gate = files.read(p + "mlp.gate_proj.weight", digest, inter, h);
        float[] up = files.read(p + "mlp.up_proj.weight", digest, inter, h);
        float[] down = files.read(p + "mlp.down_proj.weight", digest, h, inter);
        layers[i] = new Layer(attnNorm, concat(wq, wk, wv), wo, mlpNorm, concat(gate, up), down);
      }
      float[] finalNorm = files.read("model.norm.weight", digest, h);
      float[] lmHead;
      if (c.tieWordEmbeddings()) {
        lmHead = embed;
      } else if (files.has("lm_head.weight")) {
        lmHead = files.read("lm_head.weight", digest, c.vocabSize(), h);
      } else {
        throw new ModelLoadException(dir + ": missing tensor lm_head.weight (config.json has tie_word_embeddings false)");
      }
      return new LlamaWeights(c, embed, layers, finalNorm, lmHead, HexFormat.of().formatHex(digest.digest()));
    }
  }

  private static float[] concat(float[]... parts) {
    int n = 0;
    for (float[] p : parts) {
      n += p.length;
    }
    float[] out = new float[n];
    int at = 0;
    for (float[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
