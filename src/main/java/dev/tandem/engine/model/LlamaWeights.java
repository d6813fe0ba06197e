package dev.tandem.engine.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * All weights of a Llama-family model in the layouts the forward pass wants: matrices packed in panels
 * ({@link PackedMatrix}) in their checkpoint dtype (a bf16 model keeps 2 bytes per weight),
 * q/k/v projections fused into one [qDim + 2 kvDim, hidden] matrix and gate/up into one
 * [2 intermediate, hidden] matrix (fewer, larger parallel loops); norm weights as floats. The
 * embedding table is the lm_head matrix when they are tied (rows read back for the lookup); the
 * family's biases and q/k norms as floats. Also computes the fingerprint (tensors in a fixed order:
 * a plain Llama model's fingerprint is what it was before families existed).
 */
final class LlamaWeights {

  /**
   * One decoder layer. Matrices are [out, in], as Hugging Face stores them. {@code qkvBias} (the
   * q, k and v biases end to end), {@code oBias}, {@code qNorm} and {@code kNorm} (per-head RMSNorm
   * weights, Qwen3) are null where the family has none.
   */
  record Layer(float[] attnNorm, PackedMatrix wqkv, float[] qkvBias, float[] qNorm, float[] kNorm, PackedMatrix wo,
      float[] oBias, float[] mlpNorm, PackedMatrix wGateUp, PackedMatrix wDown) {

    /** Floats of the layer's vectors (norms and biases). */
    long vectorFloats() {
      return (long) attnNorm.length + mlpNorm.length + length(qkvBias) + length(qNorm) + length(kNorm)
          + length(oBias);
    }

    private static int length(float[] v) {
      return v == null ? 0 : v.length;
    }
  }

  final LlamaConfig config;
  final PackedMatrix embed;
  final Layer[] layers;
  final float[] finalNorm;
  final PackedMatrix lmHead;
  final String fingerprint;
  /** Bytes the weights occupy in their stored dtype (lm_head counted once when tied). */
  final long weightBytes;
  /** The matrices' dtype (F32 when they mix dtypes). */
  final SafetensorsDtype dtype;

  private LlamaWeights(LlamaConfig config, PackedMatrix embed, Layer[] layers, float[] finalNorm,
      PackedMatrix lmHead, String fingerprint) {
    this.config = config;
    this.embed = embed;
    this.layers = layers;
    this.finalNorm = finalNorm;
    this.lmHead = lmHead;
    this.fingerprint = fingerprint;
    long n = embed.bytes() + (long) finalNorm.length * Float.BYTES + (lmHead == embed ? 0 : lmHead.bytes());
    SafetensorsDtype d = embed.dtype;
    for (Layer l : layers) {
      n += l.vectorFloats() * Float.BYTES + l.wqkv.bytes() + l.wo.bytes()
          + l.wGateUp.bytes() + l.wDown.bytes();
      for (PackedMatrix m : new PackedMatrix[] {l.wqkv, l.wo, l.wGateUp, l.wDown}) {
        d = m.dtype == d ? d : SafetensorsDtype.F32;
      }
    }
    this.weightBytes = n;
    this.dtype = d;
  }

  static LlamaWeights load(Path dir) throws ModelLoadException {
    return load(dir, 2 * Simd.LANES);
  }

  /** Loads with panels {@code width} rows wide (tests pack for either kernel). */
  static LlamaWeights load(Path dir, int width) throws ModelLoadException {
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
      // Read in the order the fingerprint has always used; each matrix is packed as soon as it is read.
      PackedMatrix embed = PackedMatrix.pack(width, files.readRaw("model.embed_tokens.weight", digest, c.vocabSize(), h));
      Layer[] layers = new Layer[c.numLayers()];
      for (int i = 0; i < layers.length; i++) {
        String p = "model.layers." + i + ".";
        float[] attnNorm = files.read(p + "input_layernorm.weight", digest, h);
        RawTensor wq = files.readRaw(p + "self_attn.q_proj.weight", digest, q, h);
        RawTensor wk = files.readRaw(p + "self_attn.k_proj.weight", digest, kv, h);
        RawTensor wv = files.readRaw(p + "self_attn.v_proj.weight", digest, kv, h);
        PackedMatrix wqkv = PackedMatrix.pack(width, wq, wk, wv);
        float[] qkvBias = null;
        if (c.qkvBias()) {
          qkvBias = concat(files.read(p + "self_attn.q_proj.bias", digest, q),
              files.read(p + "self_attn.k_proj.bias", digest, kv), files.read(p + "self_attn.v_proj.bias", digest, kv));
        }
        float[] qNorm = null;
        float[] kNorm = null;
        if (c.family().qkNorm()) {
          qNorm = files.read(p + "self_attn.q_norm.weight", digest, c.headDim());
          kNorm = files.read(p + "self_attn.k_norm.weight", digest, c.headDim());
        }
        PackedMatrix wo = PackedMatrix.pack(width, files.readRaw(p + "self_attn.o_proj.weight", digest, h, q));
        float[] oBias = c.oBias() ? files.read(p + "self_attn.o_proj.bias", digest, h) : null;
        float[] mlpNorm = files.read(p + "post_attention_layernorm.weight", digest, h);
        RawTensor gate = files.readRaw(p + "mlp.gate_proj.weight", digest, inter, h);
        RawTensor up = files.readRaw(p + "mlp.up_proj.weight", digest, inter, h);
        PackedMatrix gateUp = PackedMatrix.pack(width, gate, up);
        PackedMatrix down = PackedMatrix.pack(width, files.readRaw(p + "mlp.down_proj.weight", digest, h, inter));
        layers[i] = new Layer(attnNorm, wqkv, qkvBias, qNorm, kNorm, wo, oBias, mlpNorm, gateUp, down);
      }
      float[] finalNorm = files.read("model.norm.weight", digest, h);
      PackedMatrix lmHead;
      if (c.tieWordEmbeddings()) {
        lmHead = embed;
      } else if (files.has("lm_head.weight")) {
        lmHead = PackedMatrix.pack(width, files.readRaw("lm_head.weight", digest, c.vocabSize(), h));
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
