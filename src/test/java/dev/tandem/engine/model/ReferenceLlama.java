package dev.tandem.engine.model;

import java.nio.file.Path;

/**
 * A deliberately naive Llama-family forward in double precision, written straight from the Hugging
 * Face modeling code (no fusion, no KV cache, no batching): the independent check of
 * {@link LlamaModel}. Families: q/k/v (and o) biases where the checkpoint has them (Qwen2, or
 * attention_bias), Qwen3's per-head q/k RMSNorm before RoPE, Llama 3.1's rope_scaling.
 */
final class ReferenceLlama {
  final LlamaConfig c;
  private final SafetensorsFile file;

  ReferenceLlama(Path dir) throws Exception {
    c = LlamaConfig.load(dir);
    file = SafetensorsFile.open(dir.resolve("model.safetensors"));
  }

  boolean has(String name) {
    return file.tensors().containsKey(name);
  }

  double[] t(String name) throws Exception {
    float[] f = file.readFloats(name, null);
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      d[i] = f[i];
    }
    return d;
  }

  /** Result of running a whole sequence: logits of the last token and K/V per layer and position. */
  record Result(double[] logits, double[][][] keys, double[][][] values) {}

  Result run(int[] tokens) throws Exception {
    int n = tokens.length;
    int h = c.hiddenSize();
    int hd = c.headDim();
    double[] embed = t("model.embed_tokens.weight");
    double[][] x = new double[n][h];
    for (int i = 0; i < n; i++) {
      System.arraycopy(embed, tokens[i] * h, x[i], 0, h);
    }
    double[][][] keys = new double[c.numLayers()][][];
    double[][][] values = new double[c.numLayers()][][];
    for (int l = 0; l < c.numLayers(); l++) {
      String p = "model.layers." + l + ".";
      double[][] xn = norm(x, t(p + "input_layernorm.weight"));
      double[][] q = linear(xn, p + "self_attn.q_proj", c.qDim());
      double[][] k = linear(xn, p + "self_attn.k_proj", c.kvDim());
      double[][] v = linear(xn, p + "self_attn.v_proj", c.kvDim());
      if (has(p + "self_attn.q_norm.weight")) { // Qwen3: RMSNorm over each head, then RoPE
        double[] qw = t(p + "self_attn.q_norm.weight");
        double[] kw = t(p + "self_attn.k_norm.weight");
        for (int i = 0; i < n; i++) {
          for (int head = 0; head < c.numHeads(); head++) {
            normHead(q[i], head * hd, hd, qw);
          }
          for (int head = 0; head < c.numKvHeads(); head++) {
            normHead(k[i], head * hd, hd, kw);
          }
        }
      }
      for (int i = 0; i < n; i++) {
        rope(q[i], c.numHeads(), i);
        rope(k[i], c.numKvHeads(), i);
      }
      keys[l] = k;
      values[l] = v;
      double[][] att = new double[n][c.qDim()];
      int group = c.numHeads() / c.numKvHeads();
      for (int i = 0; i < n; i++) {
        for (int head = 0; head < c.numHeads(); head++) {
          int kvh = head / group;
          double[] s = new double[i + 1];
          double max = Double.NEGATIVE_INFINITY;
          for (int j = 0; j <= i; j++) {
            double d = 0;
            for (int e = 0; e < hd; e++) {
              d += q[i][head * hd + e] * k[j][kvh * hd + e];
            }
            s[j] = d / Math.sqrt(hd);
            max = Math.max(max, s[j]);
          }
          double sum = 0;
          for (int j = 0; j <= i; j++) {
            s[j] = Math.exp(s[j] - max);
            sum += s[j];
          }
          for (int j = 0; j <= i; j++) {
            for (int e = 0; e < hd; e++) {
              att[i][head * hd + e] += s[j] / sum * v[j][kvh * hd + e];
            }
          }
        }
      }
      add(x, linear(att, p + "self_attn.o_proj", h));
      double[][] xn2 = norm(x, t(p + "post_attention_layernorm.weight"));
      double[][] gate = linear(xn2, t(p + "mlp.gate_proj.weight"), c.intermediateSize());
      double[][] up = linear(xn2, t(p + "mlp.up_proj.weight"), c.intermediateSize());
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < c.intermediateSize(); j++) {
          double g = gate[i][j];
          gate[i][j] = g / (1 + Math.exp(-g)) * up[i][j];
        }
      }
      add(x, linear(gate, t(p + "mlp.down_proj.weight"), h));
    }
    double[][] last = norm(new double[][] {x[n - 1]}, t("model.norm.weight"));
    String head = c.tieWordEmbeddings() ? "model.embed_tokens.weight" : "lm_head.weight";
    return new Result(linear(last, t(head), c.vocabSize())[0], keys, values);
  }

  private double[][] norm(double[][] x, double[] w) {
    double[][] out = new double[x.length][x[0].length];
    for (int i = 0; i < x.length; i++) {
      double ss = 0;
      for (double v : x[i]) {
        ss += v * v;
      }
      double inv = 1 / Math.sqrt(ss / x[i].length + c.rmsNormEps());
      for (int j = 0; j < x[i].length; j++) {
        out[i][j] = w[j] * x[i][j] * inv;
      }
    }
    return out;
  }

  /** nn.Linear: x W^T, plus the bias when the checkpoint has one. */
  private double[][] linear(double[][] x, String prefix, int outDim) throws Exception {
    double[][] out = linear(x, t(prefix + ".weight"), outDim);
    if (has(prefix + ".bias")) {
      double[] b = t(prefix + ".bias");
      for (double[] row : out) {
        for (int o = 0; o < outDim; o++) {
          row[o] += b[o];
        }
      }
    }
    return out;
  }

  private void normHead(double[] v, int off, int n, double[] w) {
    double ss = 0;
    for (int j = 0; j < n; j++) {
      ss += v[off + j] * v[off + j];
    }
    double inv = 1 / Math.sqrt(ss / n + c.rmsNormEps());
    for (int j = 0; j < n; j++) {
      v[off + j] = w[j] * v[off + j] * inv;
    }
  }

  private static double[][] linear(double[][] x, double[] w, int outDim) {
    int in = x[0].length;
    double[][] out = new double[x.length][outDim];
    for (int i = 0; i < x.length; i++) {
      for (int o = 0; o < outDim; o++) {
        double s = 0;
        for (int j = 0; j < in; j++) {
          s += w[o * in + j] * x[i][j];
        }
        out[i][o] = s;
      }
    }
    return out;
  }

  /** HF rotate_half: x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1]. */
  private void rope(double[] v, int heads, int pos) {
    int hd = c.headDim();
    int half = hd / 2;
    for (int head = 0; head < heads; head++) {
      double[] x = java.util.Arrays.copyOfRange(v, head * hd, (head + 1) * hd);
      for (int i = 0; i < hd; i++) {
        double freq = frequency(i % half);
        double rotated = i < half ? -x[i + half] : x[i - half];
        v[head * hd + i] = x[i] * Math.cos(pos * freq) + rotated * Math.sin(pos * freq);
      }
    }
  }

  /**
   * theta^(-2i/d), remapped as Llama 3.1's rope_scaling says: kept for wavelengths below
   * original / high_freq_factor, divided by factor above original / low_freq_factor, and in
   * between (1 - s) * f / factor + s * f with s = (original / wavelength - low) / (high - low).
   */
  private double frequency(int i) {
    double f = Math.pow(c.ropeTheta(), -(2.0 * i) / c.headDim());
    RopeScaling r = c.ropeScaling();
    if (r == null) {
      return f;
    }
    double wavelength = 2 * Math.PI / f;
    double original = r.originalMaxPositionEmbeddings();
    if (wavelength < original / r.highFreqFactor()) {
      return f;
    }
    if (wavelength > original / r.lowFreqFactor()) {
      return f / r.factor();
    }
    double s = (original / wavelength - r.lowFreqFactor()) / (r.highFreqFactor() - r.lowFreqFactor());
    return (1 - s) * f / r.factor() + s * f;
  }

  private static void add(double[][] x, double[][] d) {
    for (int i = 0; i < x.length; i++) {
      for (int j = 0; j < x[i].length; j++) {
        x[i][j] += d[i][j];
      }
    }
  }
}
