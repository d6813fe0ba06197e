package dev.tandem.engine.model;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Writes the model half of a seeded random Hugging Face model folder of any {@link ModelFamily}:
 * {@code config.json} (keys sorted, as transformers writes them), {@code model.safetensors}
 * (weights and biases ~ N(0, 0.02), norm weights 1) and {@code generation_config.json}. Every
 * tensor draws from its own generator seeded by the seed and the tensor's name, so the same seed
 * always gives the same bytes.
 */
public final class RandomModelWriter {
  public static final double INIT_STD = 0.02;
  static final String TRANSFORMERS_VERSION = "4.46.0";

  private RandomModelWriter() {}

  /** A plain folder: generation_config.json names bos and eos only, {@code do_sample} false. */
  public static void write(Path dir, LlamaConfig c, long seed, SafetensorsDtype dtype) throws IOException {
    JsonObject gen = new JsonObject().put("bos_token_id", c.bosTokenId()).put("eos_token_id", c.eosTokenId())
        .put("do_sample", false).put("transformers_version", TRANSFORMERS_VERSION);
    write(dir, c, seed, dtype, gen);
  }

  /** As {@link #write(Path, LlamaConfig, long, SafetensorsDtype)} with {@code generation} as generation_config.json. */
  public static void write(Path dir, LlamaConfig c, long seed, SafetensorsDtype dtype, JsonObject generation)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(LlamaConfig.FILE_NAME), configJson(c, dtype).encodePrettily() + "\n",
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("generation_config.json"), generation.encodePrettily() + "\n",
        StandardCharsets.UTF_8);
    SafetensorsWriter.write(dir.resolve(WeightFiles.SINGLE), tensors(c, seed), dtype);
  }

  /** The config.json of {@code c}, with the fields its family's transformers config writes, keys sorted. */
  public static JsonObject configJson(LlamaConfig c, SafetensorsDtype dtype) {
    Map<String, Object> m = new TreeMap<>();
    m.put("architectures", new JsonArray().add(c.family().architecture()));
    m.put("attention_dropout", 0.0);
    m.put("bos_token_id", c.bosTokenId() < 0 ? null : c.bosTokenId());
    m.put("eos_token_id", c.eosTokenIds().size() == 1 ? c.eosTokenIds().get(0) : new JsonArray(List.copyOf(c.eosTokenIds())));
    m.put("hidden_act", "silu");
    m.put("hidden_size", c.hiddenSize());
    m.put("initializer_range", INIT_STD);
    m.put("intermediate_size", c.intermediateSize());
    m.put("max_position_embeddings", c.maxPositionEmbeddings());
    m.put("model_type", c.family().modelType());
    m.put("num_attention_heads", c.numHeads());
    m.put("num_hidden_layers", c.numLayers());
    m.put("num_key_value_heads", c.numKvHeads());
    m.put("rms_norm_eps", c.rmsNormEps());
    m.put("rope_scaling", ropeScaling(c.ropeScaling()));
    m.put("rope_theta", c.ropeTheta());
    m.put("tie_word_embeddings", c.tieWordEmbeddings());
    m.put("torch_dtype", dtype == SafetensorsDtype.BF16 ? "bfloat16" : dtype == SafetensorsDtype.F16 ? "float16" : "float32");
    m.put("use_cache", true);
    m.put("vocab_size", c.vocabSize());
    if (c.family() != ModelFamily.QWEN2) {
      m.put("attention_bias", c.attentionBias());
      m.put("head_dim", c.headDim());
    }
    if (c.family() == ModelFamily.LLAMA) {
      m.put("mlp_bias", false);
      m.put("pretraining_tp", 1);
    } else {
      m.put("max_window_layers", c.numLayers());
      m.put("sliding_window", c.family() == ModelFamily.QWEN2 ? c.maxPositionEmbeddings() : null);
      m.put("use_sliding_window", false);
    }
    JsonObject j = new JsonObject();
    m.forEach(j::put);
    return j;
  }

  private static JsonObject ropeScaling(RopeScaling r) {
    return r == null ? null : new JsonObject().put("factor", r.factor()).put("high_freq_factor", r.highFreqFactor())
        .put("low_freq_factor", r.lowFreqFactor())
        .put("original_max_position_embeddings", r.originalMaxPositionEmbeddings()).put("rope_type", RopeScaling.TYPE);
  }

  private static List<SafetensorsWriter.Entry> tensors(LlamaConfig c, long seed) {
    long h = c.hiddenSize();
    List<SafetensorsWriter.Entry> list = new ArrayList<>();
    list.add(random("model.embed_tokens.weight", seed, c.vocabSize(), h));
    for (int i = 0; i < c.numLayers(); i++) {
      String p = "model.layers." + i + ".";
      list.add(ones(p + "input_layernorm.weight", h));
      list.add(ones(p + "post_attention_layernorm.weight", h));
      list.add(random(p + "self_attn.q_proj.weight", seed, c.qDim(), h));
      list.add(random(p + "self_attn.k_proj.weight", seed, c.kvDim(), h));
      list.add(random(p + "self_attn.v_proj.weight", seed, c.kvDim(), h));
      list.add(random(p + "self_attn.o_proj.weight", seed, h, c.qDim()));
      if (c.qkvBias()) {
        list.add(random(p + "self_attn.q_proj.bias", seed, c.qDim()));
        list.add(random(p + "self_attn.k_proj.bias", seed, c.kvDim()));
        list.add(random(p + "self_attn.v_proj.bias", seed, c.kvDim()));
      }
      if (c.oBias()) {
        list.add(random(p + "self_attn.o_proj.bias", seed, h));
      }
      if (c.family().qkNorm()) {
        list.add(ones(p + "self_attn.q_norm.weight", c.headDim()));
        list.add(ones(p + "self_attn.k_norm.weight", c.headDim()));
      }
      list.add(random(p + "mlp.gate_proj.weight", seed, c.intermediateSize(), h));
      list.add(random(p + "mlp.up_proj.weight", seed, c.intermediateSize(), h));
      list.add(random(p + "mlp.down_proj.weight", seed, h, c.intermediateSize()));
    }
    list.add(ones("model.norm.weight", h));
    if (!c.tieWordEmbeddings()) {
      list.add(random("lm_head.weight", seed, c.vocabSize(), h));
    }
    list.sort(Comparator.comparing(SafetensorsWriter.Entry::name));
    return list;
  }

  private static SafetensorsWriter.Entry random(String name, long seed, long... shape) {
    long rows = shape[0];
    long cols = shape.length > 1 ? shape[1] : 1;
    return new SafetensorsWriter.Entry(name, shape, () -> {
      // String.hashCode is specified by the JLS, so this seed is the same on every JVM.
      SplittableRandom rng = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + name.hashCode());
      float[] v = new float[Math.toIntExact(rows * cols)];
      for (int i = 0; i < v.length; i++) {
        v[i] = (float) (rng.nextGaussian() * INIT_STD);
      }
      return v;
    });
  }

  private static SafetensorsWriter.Entry ones(String name, long n) {
    return new SafetensorsWriter.Entry(name, new long[] {n}, () -> {
      float[] v = new float[Math.toIntExact(n)];
      Arrays.fill(v, 1f);
      return v;
    });
  }
}
