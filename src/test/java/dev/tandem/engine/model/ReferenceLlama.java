package dev.tandem.engine.model;

import java.nio.file.Path;

/**
 * A deliberately naive Llama forward in double precision, written straight from the Hugging Face
 * modeling code (no fusion, no KV cache, no batching): the independent check of {@link LlamaModel}.
 */
final class ReferenceLlama {
  final LlamaConfig c;
  private final SafetensorsFile file;

  ReferenceLlama(Path dir) throws Exception {
    c = LlamaConfig.load(dir);
    file = SafetensorsFile.open(dir.resolve("model.safetensors"));
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
      double[][] q = linear(xn, t(p + "self_attn.q_proj.weight"), c.qDim());
      double[][] k = linear(xn, t(p + "self_attn.k_proj.weight"), c.kvDim());
      double[][] v = linear(xn, t(p + "self_attn.v_proj.weight"), c.kvDim());
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
      add(x, linear(att, t(p + "self_attn.o_proj.weight"), h));
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
        double freq = Math.pow(c.ropeTheta(), -(2.0 * (i % half)) / hd);
        double rotated = i < half ? -x[i + half] : x[i - half];
        v[head * hd + i] = x[i] * Math.cos(pos * freq) + rotated * Math.sin(pos * freq);
      }
    }
  }

  private static void add(double[][] x, double[][] d) {
    for (int i = 0; i < x.length; i++) {
      for (int j = 0; j < x[i].length; j++) {
        x[i][j] += d[i][j];
      }
    }
  }
}
